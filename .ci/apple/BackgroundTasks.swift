// Stand-in for Apple's BackgroundTasks: what the package (continued processing, iOS 26) and its
// documentation use. BackgroundTasks is an Objective-C framework: each signature is the Swift
// declaration that Apple's documentation page of the symbol (named above it) shows, with that
// page's availability. The public SDK mirrors stop at iOS 17.0, before continued processing
// (`BGContinuedProcessingTask`, iOS 26): .ci/check-apple reads this file as for iOS 26 in the ios
// variant (as it reads ActivityKit's as for iOS 16.2), and the code that uses those declarations
// is marked `@available(iOS 26, *)`; .ci/apple-sdk-compile leaves it out (-D
// DOWNSTREAM_SDK_BEFORE_IOS26). Only the ios variant imports this module.

@_exported import AppleFoundation

// https://developer.apple.com/documentation/backgroundtasks/bgtask
// `class BGTask` (an NSObject; iOS 13.0, iPadOS 13.0, Mac Catalyst 13.1, tvOS 13.0, visionOS 1.0).
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTask: NSObject {
    // https://developer.apple.com/documentation/backgroundtasks/bgtask/identifier
    // `var identifier: String { get }`
    open var identifier: String { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgtask/expirationhandler
    // `var expirationHandler: (() -> Void)? { get set }`
    open var expirationHandler: (() -> Void)? {
        get { fatalError() }
        set { fatalError() }
    }

    // https://developer.apple.com/documentation/backgroundtasks/bgtask/settaskcompleted(success:)
    // `func setTaskCompleted(success: Bool)`
    open func setTaskCompleted(success: Bool) { fatalError() }

    // Subclasses of this abstract type are created by the system (`init` is unavailable).
    @available(*, unavailable)
    override init() { fatalError() }

    fileprivate init(system: Void) { super.init() }
}

// https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtask
// `class BGContinuedProcessingTask` (BGTask, conforms to ProgressReporting; iOS 26.0, iPadOS 26.0).
@available(iOS 26.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
open class BGContinuedProcessingTask: BGTask, ProgressReporting {
    // https://developer.apple.com/documentation/foundation/progressreporting/progress
    // `var progress: Progress { get }` (ProgressReporting's requirement, which the task's page
    // lists: the system shows it).
    open var progress: Progress { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtask/title
    // `var title: String { get }`
    open var title: String { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtask/subtitle
    // `var subtitle: String { get }`
    open var subtitle: String { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtask/updatetitle(_:subtitle:)
    // `func updateTitle(_ title: String, subtitle: String)`
    open func updateTitle(_ title: String, subtitle: String) { fatalError() }

    private init() { super.init(system: ()) }
}

// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest
// `class BGTaskRequest` (an NSObject; iOS 13.0, iPadOS 13.0, Mac Catalyst 13.1, tvOS 13.0, visionOS 1.0).
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTaskRequest: NSObject {
    // https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest/identifier
    // `var identifier: String { get }`
    open var identifier: String { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest/earliestbegindate
    // `var earliestBeginDate: Date? { get set }`
    open var earliestBeginDate: Date? {
        get { fatalError() }
        set { fatalError() }
    }

    fileprivate init(request: Void) { super.init() }
}

// https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtaskrequest
// `class BGContinuedProcessingTaskRequest` (BGTaskRequest; iOS 26.0, iPadOS 26.0).
@available(iOS 26.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
open class BGContinuedProcessingTaskRequest: BGTaskRequest {
    // https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtaskrequest/init(identifier:title:subtitle:)
    // `init(identifier: String, title: String, subtitle: String)`
    public init(identifier: String, title: String, subtitle: String) { super.init(request: ()) }

    // https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtaskrequest/title
    // `var title: String { get set }`
    open var title: String {
        get { fatalError() }
        set { fatalError() }
    }

    // https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtaskrequest/subtitle
    // `var subtitle: String { get set }`
    open var subtitle: String {
        get { fatalError() }
        set { fatalError() }
    }
}

// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler
// `class BGTaskScheduler` (an NSObject; iOS 13.0, iPadOS 13.0, Mac Catalyst 13.1, tvOS 13.0, visionOS 1.0).
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTaskScheduler: NSObject {
    // https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/shared
    // `class var shared: BGTaskScheduler { get }`
    open class var shared: BGTaskScheduler { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:)
    // `func register(forTaskWithIdentifier identifier: String, using queue: dispatch_queue_t?,
    // launchHandler: @escaping (BGTask) -> Void) -> Bool` (dispatch_queue_t is DispatchQueue in Swift).
    open func register(
        forTaskWithIdentifier identifier: String, using queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool { fatalError() }

    // https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/submit(_:)
    // `func submit(_ taskRequest: BGTaskRequest) throws`
    open func submit(_ taskRequest: BGTaskRequest) throws { fatalError() }

    private override init() { super.init() }
}
