// Stand-in for Apple's UIKit (iOS variant only): what an app delegate in the documentation needs.
// Signatures are the Swift view of the iOS 16.5 SDK's UIKit headers (UIApplication.h,
// UIResponder.h; swift-synthesize-interface -module-name UIKit).
//
// UIApplicationDelegate's methods are optional Objective-C requirements on iOS. Linux has no
// Objective-C, so they are requirements with a default implementation here: a delegate that
// implements one with a wrong signature compiles without a word, where Apple's compiler warns that
// it "nearly matches optional requirement" (and the system never calls it). The imported
// `launchOptions` parameter defaults to nil on iOS; a Swift protocol requirement cannot have a
// default argument.

@_exported import AppleFoundation

// UIResponder.h: `@MainActor open class UIResponder : NSObject, UIResponderStandardEditActions`.
@available(iOS 2.0, *)
@MainActor open class UIResponder: NSObject {}

// UIApplication.h: `@MainActor open class UIApplication : UIResponder`.
@available(iOS 2.0, *)
@MainActor open class UIApplication: UIResponder {
    // UIApplication.h: `open class var shared: UIApplication { get }`.
    open class var shared: UIApplication { fatalError() }
}

extension UIApplication {
    // UIApplication.h: `UIApplicationLaunchOptionsKey`, imported as UIApplication.LaunchOptionsKey.
    public struct LaunchOptionsKey: Hashable, Equatable, RawRepresentable, @unchecked Sendable {
        // UIApplication.h: `public init(rawValue: String)`.
        public init(rawValue: String) { fatalError() }
        // RawRepresentable.
        public var rawValue: String { fatalError() }
    }
}

// UIApplication.h: `@MainActor public protocol UIApplicationDelegate : NSObjectProtocol`.
@MainActor public protocol UIApplicationDelegate: NSObjectProtocol {
    // UIApplication.h: `application:didFinishLaunchingWithOptions:` (optional).
    @available(iOS 3.0, *)
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool

    // UIApplication.h: `application:handleEventsForBackgroundURLSession:completionHandler:` (optional).
    @available(iOS 7.0, *)
    func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void)
}

extension UIApplicationDelegate {
    // The default that stands for "optional": see the note at the top.
    @available(iOS 3.0, *)
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { fatalError() }

    // The default that stands for "optional": see the note at the top.
    @available(iOS 7.0, *)
    public func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) { fatalError() }
}
