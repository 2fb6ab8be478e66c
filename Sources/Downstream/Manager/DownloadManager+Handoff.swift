import Foundation

extension DownloadManager.Configuration.Background {
    /// When a manager with a background session runs its downloads as system tasks.
    ///
    /// System tasks go on while the app is suspended or not running, at the system's pace, without
    /// segments or bandwidth limits. The ranged engine is faster and does all of that, but stops
    /// with the app. ``handoff`` takes the best of both: see <doc:BackgroundDownloads#Handoff>.
    public struct Mode: Sendable, Hashable {
        enum Code: Sendable, Hashable {
            case backgroundOnly, handoff, foregroundOnly
        }

        let code: Code

        /// Every download runs as a system task, in front and behind (the default).
        public static let backgroundOnly = Mode(code: .backgroundOnly)
        /// Downloads run on the ranged engine while the app is in front; when it leaves the
        /// foreground, each running download's remainder is handed to the background session as
        /// a system task that continues the bytes on disk, and downloads that start then are
        /// system tasks. Back in front, a remainder still running is left to the system.
        public static let handoff = Mode(code: .handoff)
        /// Downloads never run as system tasks; the background session only finishes the tasks of
        /// earlier launches.
        public static let foregroundOnly = Mode(code: .foregroundOnly)

        /// When the engines use the system session.
        var policy: SystemUse.Policy {
            switch code {
            case .backgroundOnly: .always
            case .handoff: .handoff
            case .foregroundOnly: .never
            }
        }
    }
}

extension DownloadManager {
    /// Tells the manager that the app left the foreground. With the
    /// ``Configuration-swift.struct/Background-swift.struct/Mode-swift.struct/handoff`` mode, each
    /// download running on the ranged engine stops its request, and continues from its bytes on
    /// disk as a task of the background session; downloads that start from now on are such tasks.
    /// Downloads the system keeps running (continued processing, see
    /// <doc:BackgroundDownloads#Continued-processing>) stay on the ranged engine until it ends.
    /// Otherwise it does nothing.
    ///
    /// On iOS, tvOS and visionOS the manager follows UIKit's notifications
    /// (`UIApplication.didEnterBackgroundNotification`) on its own; call this where there are none
    /// (an app that manages its own life cycle, a test).
    public func appDidEnterBackground() {
        guard let use = engines.system != nil ? engines.systemUse : nil, use.isInForeground else { return }
        use.isInForeground = false
        guard use.policy == .handoff else { return }
        for id in scheduler.runningIDs where !use.isKeptInFront(id) {
            guard let download = byID[id] else { continue }
            Task { await download.handOff() }
        }
    }

    /// Tells the manager that the app is in front again: downloads that start from now on run on
    /// the ranged engine (with the handoff mode). A remainder the system runs is left to it: its
    /// bytes are in the system's file, which the app cannot read before the task finishes, so
    /// taking it back would download them twice.
    ///
    /// On iOS, tvOS and visionOS the manager follows UIKit's notifications
    /// (`UIApplication.willEnterForegroundNotification`) on its own.
    public func appWillEnterForeground() {
        engines.systemUse.isInForeground = true
    }
}

/// The app's foreground and background notifications a manager follows; removed with it.
final class AppLifecycleObservers: Sendable {
    /// The tokens NotificationCenter gave (added on the main actor, removed at deinit).
    private let tokens = Locked<[any NSObjectProtocol]>([])

    func add(_ token: any NSObjectProtocol) {
        tokens.withLock { $0.append(token) }
    }

    deinit {
        tokens.withLock { tokens in
            for token in tokens {
                NotificationCenter.default.removeObserver(token)
            }
        }
    }
}
