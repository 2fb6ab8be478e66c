import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadManager.Configuration {
    /// Settings of a background session: the system downloads while the app is suspended or not
    /// running, and relaunches the app in the background when the downloads need it.
    ///
    /// Downloads then run as system download tasks (the system writes the file; Downstream moves
    /// it into place). Background sessions exist on Apple platforms only: elsewhere the manager
    /// fails to start, unless ``onUnsupportedPlatform`` says to use download tasks of an ordinary
    /// session instead.
    public struct Background: Sendable {
        /// The background session's identifier: the same at every launch, unique in the app.
        public var sessionIdentifier: String
        /// Whether the system may wait for good conditions (Wi-Fi, power) to download.
        /// Default: false.
        public var isDiscretionary = false
        /// Whether the system relaunches the app in the background when a download needs it
        /// (iOS, tvOS, watchOS, visionOS). Default: true.
        public var sessionSendsLaunchEvents = true
        /// Whether downloads may use cellular networks. Default: true.
        public var allowsCellularAccess = true
        /// Whether downloads may use networks the system considers expensive. Default: true.
        public var allowsExpensiveNetworkAccess = true
        /// Whether downloads may use networks in Low Data Mode. Default: true.
        public var allowsConstrainedNetworkAccess = true
        /// The app group whose shared container the system downloads into, for a session made by
        /// an app extension (which the system may end before its downloads do: the app takes the
        /// session over). Apple platforms only; nil (the default) for the app's own container.
        public var sharedContainerIdentifier: String?
        /// The most tasks the manager hands the system at once; the next queued downloads become
        /// tasks as these finish, while the app runs or when the session wakes it. It caps the
        /// queue's ``DownloadManager/Configuration-swift.struct/Scheduling-swift.struct/maximumConcurrentDownloads``
        /// (for every download of the manager), however high that is set. Default: 50.
        ///
        /// Apple's advice is fewer, larger transfers. Every task costs the app time to create (400
        /// took 3.7 s on an iPhone 7 Plus, and apps creating 500 or more as they went to the
        /// background were ended by the system, as reported on Apple's developer forums, thread
        /// 699462), and the system delays each wake of an app in the background more than the last
        /// (its resume rate limiter): too few tasks at once waste the time between wakes, too many
        /// slow every launch. Apple's engineers put thousands clearly too many and tens safe; 50 is
        /// tens, created in well under a second.
        public var maximumSystemTasks = 50
        /// When downloads run as system tasks: always (the default), only once the app left the
        /// foreground (``Mode-swift.struct/handoff``: the ranged engine while the app is in
        /// front), or never (``Mode-swift.struct/foregroundOnly``).
        public var mode = Mode.backgroundOnly
        /// What to do on a platform without background sessions (Linux). Default: fail.
        public var onUnsupportedPlatform = UnsupportedPlatformPolicy.fail

        /// Background settings for the session named `sessionIdentifier`.
        public init(sessionIdentifier: String) {
            self.sessionIdentifier = sessionIdentifier
        }
    }
}

extension DownloadManager.Configuration.Background {
    /// What a manager asked for a background session does where background sessions do not
    /// exist.
    public struct UnsupportedPlatformPolicy: Sendable, Hashable {
        enum Code: Sendable, Hashable {
            case fail, useForegroundSession
        }

        let code: Code

        /// ``DownloadManager/init(configuration:)`` throws
        /// ``DownloadError/Kind/managerUnavailable``.
        public static let fail = UnsupportedPlatformPolicy(code: .fail)
        /// Download with the download tasks of an ordinary session: the same engine and events,
        /// but the downloads stop with the process.
        public static let useForegroundSession = UnsupportedPlatformPolicy(code: .useForegroundSession)
    }
}

extension DownloadManager.Configuration {
    /// The configuration of the system session: a background one on Apple platforms.
    func makeSystemSessionConfiguration(_ background: Background) throws(DownloadError) -> URLSessionConfiguration {
        #if canImport(Darwin)
            let configuration = URLSessionConfiguration.background(withIdentifier: background.sessionIdentifier)
            configuration.isDiscretionary = background.isDiscretionary
            #if !os(macOS)
                configuration.sessionSendsLaunchEvents = background.sessionSendsLaunchEvents
            #endif
            configuration.allowsExpensiveNetworkAccess = background.allowsExpensiveNetworkAccess
            configuration.allowsConstrainedNetworkAccess = background.allowsConstrainedNetworkAccess
            configuration.sharedContainerIdentifier = background.sharedContainerIdentifier
        #else
            guard background.onUnsupportedPlatform == .useForegroundSession else {
                throw .managerUnavailable(
                    "background URL sessions do not exist on this platform; to download with the system-task engine "
                        + "in an ordinary session, set background.onUnsupportedPlatform = .useForegroundSession")
            }
            let configuration = URLSessionConfiguration.default
        #endif
        configuration.allowsCellularAccess = background.allowsCellularAccess
        applySessionSettings(to: configuration)
        return configuration
    }
}

extension DownloadManager {
    /// A download task of the background session that no download of this manager claims.
    public typealias UnclaimedTask = Downstream.UnclaimedTask

    /// The background session's tasks that no download claimed, since the manager started.
    public var unclaimedTasks: [UnclaimedTask] {
        systemRouter?.unclaimed ?? []
    }

    /// Hands the manager the completion handler the system gives the app for its background
    /// session's events; the manager calls it, once, on the main actor, when the session delivered
    /// all its events and every download that finished among them has its file in place, its
    /// record written and its completion handlers run.
    ///
    /// Call it from UIKit's `application(_:handleEventsForBackgroundURLSession:completionHandler:)`,
    /// passing its completion handler as it is, before or after making the manager's downloads;
    /// for SwiftUI, see ``backgroundEventsHandled(forSessionIdentifier:)``.
    ///
    /// - Returns: false (and does not keep the handler) if `identifier` is not this manager's
    ///   background session: hand it to the manager it belongs to.
    @MainActor
    @discardableResult
    public func handleEventsForBackgroundURLSession(
        identifier: String, completionHandler: @escaping () -> Void
    ) -> Bool {
        guard configuration.background?.sessionIdentifier == identifier, let systemRouter else { return false }
        systemRouter.backgroundEvents.waiterArrived(.completionHandler(MainActorClosure(completionHandler)))
        return true
    }

    /// Returns once the events of the background session named `identifier` are handled (see
    /// ``handleEventsForBackgroundURLSession(identifier:completionHandler:)``): for SwiftUI's
    /// `.backgroundTask(.urlSession(identifier))`, whose task ends when this returns. Returns at
    /// once if `identifier` is not this manager's session.
    public nonisolated func backgroundEventsHandled(forSessionIdentifier identifier: String) async {
        guard configuration.background?.sessionIdentifier == identifier, let systemRouter else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            systemRouter.backgroundEvents.waiterArrived(.task(continuation))
        }
    }

    /// Adds a handler that every download of this manager runs when it completes, after its file
    /// is in place: in the order the handlers were added, each awaited.
    ///
    /// A handler added right after the manager is made, at every launch, also runs for the
    /// downloads that finished in a background session while the app was not running, before the
    /// system's completion handler for those events is called. (Closures of an earlier process
    /// cannot be restored; handlers added at launch are the way to react to those downloads.)
    public nonisolated func addCompletionHandler(_ handler: @escaping @Sendable (Download, URL) async -> Void) {
        observer.addCompletionHandler(handler)
    }
}
