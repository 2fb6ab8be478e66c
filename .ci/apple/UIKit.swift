// Stand-in for Apple's UIKit (every variant but macOS): what an app delegate in the documentation
// needs. Signatures are the Swift view of the iOS 16.5 SDK's UIKit headers (UIApplication.h,
// UIResponder.h; swift-synthesize-interface -module-name UIKit).
//
// Other platforms: the headers say `ios(...)` only, and clang infers tvOS and visionOS from it;
// Apple's documentation pages for UIResponder, UIApplication, UIApplicationDelegate and the two
// methods below list tvOS 9.0+ and visionOS 1.0+, and no watchOS: watchOS's UIKit has a few
// classes (UIImage, UIColor, UIFont), and its app delegate is WatchKit's WKApplicationDelegate.
// Hence `@available(watchOS, unavailable)`; visionOS inherits iOS's availability (.ci/check-apple).
//
// UIApplicationDelegate's methods are optional Objective-C requirements on iOS. Linux has no
// Objective-C, so they are requirements with a default implementation here: a delegate that
// implements one with a wrong signature compiles without a word, where Apple's compiler warns that
// it "nearly matches optional requirement" (and the system never calls it). The imported
// `launchOptions` parameter defaults to nil on iOS; a Swift protocol requirement cannot have a
// default argument.

@_exported import AppleFoundation

// UIResponder.h: `@MainActor open class UIResponder : NSObject, UIResponderStandardEditActions`.
@available(iOS 2.0, tvOS 9.0, *)
@available(watchOS, unavailable)
@MainActor open class UIResponder: NSObject {}

// UIApplication.h: `@MainActor open class UIApplication : UIResponder`.
@available(iOS 2.0, tvOS 9.0, *)
@available(watchOS, unavailable)
@MainActor open class UIApplication: UIResponder {
    // UIApplication.h: `open class var shared: UIApplication { get }`.
    open class var shared: UIApplication { fatalError() }
}

@available(iOS 2.0, tvOS 9.0, *)
@available(watchOS, unavailable)
extension UIApplication {
    // UIApplication.h: `UIKIT_EXTERN NSNotificationName const UIApplicationDidEnterBackgroundNotification
    // API_AVAILABLE(ios(4.0))`, imported as a class property of UIApplication (main-actor isolated
    // here, as a member of a @MainActor class: the 16.5 SDK marks it no other way; Apple's page
    // "didEnterBackgroundNotification" lists iOS 4.0+, tvOS 9.0+, visionOS 1.0+).
    @available(iOS 4.0, tvOS 9.0, *)
    public class var didEnterBackgroundNotification: NSNotification.Name { fatalError() }
    // UIApplication.h: `UIApplicationWillEnterForegroundNotification API_AVAILABLE(ios(4.0))`.
    @available(iOS 4.0, tvOS 9.0, *)
    public class var willEnterForegroundNotification: NSNotification.Name { fatalError() }

    // UIApplication.h: `UIApplicationLaunchOptionsKey`, imported as UIApplication.LaunchOptionsKey.
    public struct LaunchOptionsKey: Hashable, Equatable, RawRepresentable, @unchecked Sendable {
        // UIApplication.h: `public init(rawValue: String)`.
        public init(rawValue: String) { fatalError() }
        // RawRepresentable.
        public var rawValue: String { fatalError() }
    }
}

// UIApplication.h: `@MainActor public protocol UIApplicationDelegate : NSObjectProtocol`.
@available(iOS 2.0, tvOS 9.0, *)
@available(watchOS, unavailable)
@MainActor public protocol UIApplicationDelegate: NSObjectProtocol {
    // UIApplication.h: `application:didFinishLaunchingWithOptions:` (optional).
    @available(iOS 3.0, tvOS 9.0, *)
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool

    // UIApplication.h: `application:handleEventsForBackgroundURLSession:completionHandler:` (optional).
    @available(iOS 7.0, tvOS 9.0, *)
    func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void)
}

@available(iOS 2.0, tvOS 9.0, *)
@available(watchOS, unavailable)
extension UIApplicationDelegate {
    // The default that stands for "optional": see the note at the top.
    @available(iOS 3.0, tvOS 9.0, *)
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { fatalError() }

    // The default that stands for "optional": see the note at the top.
    @available(iOS 7.0, tvOS 9.0, *)
    public func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) { fatalError() }
}
