// Foundation as Apple platforms have it, on top of Linux Foundation: .ci/check-apple makes every
// file it checks import this module (-import-module AppleFoundation).
//
// Apple's Foundation has URLSession itself and re-exports Darwin; Linux keeps URLSession in
// FoundationNetworking (the Apple variant of the code does not import it, so it comes from
// here). Below are the Apple-only declarations the package's Darwin branches and the
// documentation samples use, as extensions of the Linux types. Signatures are the Swift view of
// the iOS 16.5 SDK's Foundation headers (NSURLSession.h; swift-synthesize-interface -module-name
// Foundation) with each header's API_AVAILABLE, and its Foundation.swiftinterface.
//
// Differences an extension cannot express: Apple's members are `open` and can be overridden;
// `urlSessionDidFinishEvents(forBackgroundURLSession:)` is an optional requirement of
// URLSessionDelegate on Apple platforms, here a protocol extension method, so a delegate method
// whose signature is slightly wrong is not reported (Apple's compiler warns "nearly matches").

@_exported import Darwin
@_exported import Foundation
@_exported import FoundationNetworking
import Combine
import Security

// NSURLProtectionSpace.h `NSURLAuthenticationMethodServerTrust`, `NSURLAuthenticationMethodClientCertificate`
// (Linux declares them unavailable); these shadow FoundationNetworking's, which this module imports.
@available(macOS 10.6, iOS 3.0, watchOS 2.0, tvOS 9.0, *)
public var NSURLAuthenticationMethodServerTrust: String { fatalError() }
@available(macOS 10.6, iOS 3.0, watchOS 2.0, tvOS 9.0, *)
public var NSURLAuthenticationMethodClientCertificate: String { fatalError() }

extension URLProtectionSpace {
    // NSURLProtectionSpace.h `@property (nullable, readonly) SecTrustRef serverTrust` (Linux has `serverTrust: Any?`;
    // code that reads it names the type: `let trust: SecTrust? = space.serverTrust`).
    @available(macOS 10.6, iOS 3.0, watchOS 2.0, tvOS 9.0, *)
    public var serverTrust: SecTrust? { fatalError() }
}

extension URLCredential {
    // NSURLCredential.h `-initWithTrust:`.
    @available(macOS 10.6, iOS 3.0, watchOS 2.0, tvOS 9.0, *)
    public convenience init(trust: SecTrust) { fatalError() }

    // NSURLCredential.h `-initWithIdentity:certificates:persistence:`.
    @available(macOS 10.6, iOS 3.0, watchOS 2.0, tvOS 9.0, *)
    public convenience init(
        identity: SecIdentity, certificates certArray: [Any]?, persistence: URLCredential.Persistence
    ) {
        fatalError()
    }
}

extension URLSessionConfiguration {
    // NSURLSession.h `+backgroundSessionConfigurationWithIdentifier:` (Linux declares it unavailable).
    @available(macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, *)
    public class func background(withIdentifier identifier: String) -> URLSessionConfiguration { fatalError() }

    // NSURLSession.h `@property BOOL allowsExpensiveNetworkAccess`.
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsExpensiveNetworkAccess: Bool {
        get { fatalError() }
        set { fatalError() }
    }

    // NSURLSession.h `@property BOOL allowsConstrainedNetworkAccess`.
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsConstrainedNetworkAccess: Bool {
        get { fatalError() }
        set { fatalError() }
    }

    // NSURLSession.h `@property BOOL sessionSendsLaunchEvents`.
    @available(macOS 11.0, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    public var sessionSendsLaunchEvents: Bool {
        get { fatalError() }
        set { fatalError() }
    }
}

extension URLSessionConfiguration {
    // NSURLSession.h `@property (nullable, copy) NSString *sharedContainerIdentifier` (Linux's is get-only).
    @available(macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, *)
    public var sharedContainerIdentifier: String? {
        get { fatalError() }
        set { fatalError() }
    }
}

extension URLSessionTask {
    // NSURLSession.h `@property (nullable, copy) NSDate *earliestBeginDate` (deprecated on Linux, which has no
    // background sessions).
    @available(macOS 10.13, iOS 11.0, watchOS 4.0, tvOS 11.0, *)
    public var earliestBeginDate: Date? {
        get { fatalError() }
        set { fatalError() }
    }
}

extension URLRequest {
    // NSURLRequest.h `@property BOOL allowsExpensiveNetworkAccess` (NSMutableURLRequest: settable).
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsExpensiveNetworkAccess: Bool {
        get { fatalError() }
        set { fatalError() }
    }

    // NSURLRequest.h `@property BOOL allowsConstrainedNetworkAccess` (NSMutableURLRequest: settable).
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsConstrainedNetworkAccess: Bool {
        get { fatalError() }
        set { fatalError() }
    }
}

extension URLSessionDelegate {
    // NSURLSession.h `-URLSessionDidFinishEventsForBackgroundURLSession:` (optional requirement).
    @available(macOS 11.0, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) { fatalError() }
}

// Foundation.swiftinterface: `public typealias ObservableObject = Combine.ObservableObject`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public typealias ObservableObject = Combine.ObservableObject
// Foundation.swiftinterface: `public typealias Published = Combine.Published`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public typealias Published = Combine.Published

// NSFileCoordinator.h (iOS 16.5 SDK): `@interface NSFileCoordinator : NSObject`
// API_AVAILABLE(macos(10.7), ios(5.0), watchos(2.0), tvos(9.0)), `-initWithFilePresenter:`,
// `NSFileCoordinatorWritingOptions` and `-coordinateWritingItemAtURL:options:error:byAccessor:`
// (the accessor NS_NOESCAPE). Apple's documentation: "NSFileCoordinator",
// https://developer.apple.com/documentation/foundation/nsfilecoordinator, and
// "coordinate(writingItemAt:options:error:byAccessor:)". Linux Foundation has no file coordination.
@available(macOS 10.7, iOS 5.0, watchOS 2.0, tvOS 9.0, *)
public protocol NSFilePresenter: NSObjectProtocol {}

// Foundation.swiftinterface: `public typealias NSErrorPointer =
// AutoreleasingUnsafeMutablePointer<NSError?>?`; that pointer type exists only with the
// Objective-C runtime, and `&error` converts to this one the same way.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

@available(macOS 10.7, iOS 5.0, watchOS 2.0, tvOS 9.0, *)
open class NSFileCoordinator: NSObject {
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    public init(filePresenter filePresenterOrNil: (any NSFilePresenter)?) { fatalError() }

    open func coordinate(
        writingItemAt url: URL, options: NSFileCoordinator.WritingOptions = [], error outError: NSErrorPointer,
        byAccessor writer: (URL) -> Void
    ) { fatalError() }
}
