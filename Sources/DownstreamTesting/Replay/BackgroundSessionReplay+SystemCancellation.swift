import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension BackgroundSessionReplay {
    /// Why the system cancelled a background task on its own (Apple's
    /// `NSURLErrorBackgroundTaskCancelledReasonKey` values).
    public struct CancelledReason: Sendable, Hashable, CustomStringConvertible {
        /// The value in the error's `userInfo`.
        public let rawValue: Int

        /// The user force-quit the app (`NSURLErrorCancelledReasonUserForceQuitApplication`): the
        /// system cancels every background task and does not relaunch the app for them.
        public static let userForceQuitApplication = CancelledReason(rawValue: 0)
        /// Background updates are off for the app (`NSURLErrorCancelledReasonBackgroundUpdatesDisabled`).
        public static let backgroundUpdatesDisabled = CancelledReason(rawValue: 1)
        /// The system lacked resources (`NSURLErrorCancelledReasonInsufficientSystemResources`).
        public static let insufficientSystemResources = CancelledReason(rawValue: 2)

        public var description: String {
            switch rawValue {
            case 0: "user force quit application"
            case 1: "background updates disabled"
            case 2: "insufficient system resources"
            default: "reason \(rawValue)"
            }
        }
    }

    /// Replays that the system cancelled `task` on its own, as it cancels every background task
    /// of an app the user force-quits: the task is no longer active (a manager made afterwards
    /// does not find it among the session's tasks). Its completion, a `URLError.cancelled` with
    /// `reason` and with `resumeData` where the system made some, reaches the next manager made
    /// with the replay once that manager has listed the session's tasks, as the system delivers it
    /// when the relaunched app makes its session again; with `isDelivered: false`, never (a
    /// system that dropped it: the relaunched app finds nothing of the task).
    public func cancelBySystem(
        _ task: DownloadTask, reason: CancelledReason, resumeData: Data? = nil, isDelivered: Bool = true
    ) {
        var userInfo: [String: Any] = [URLErrorBackgroundTaskCancelledReasonKey: reason.rawValue]
        if let resumeData {
            userInfo[URLSessionDownloadTaskResumeDataKey] = resumeData
        }
        let error = NSError(domain: NSURLErrorDomain, code: URLError.Code.cancelled.rawValue, userInfo: userInfo)
        if isDelivered {
            deliverLater(task, error: error)
        } else {
            task.system.end()
        }
    }
}
