import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension BackgroundSessionReplay {
    /// A download task of a replayed background session: one a manager started, or one you added
    /// with ``BackgroundSessionReplay/addTask(taskIdentifier:taskDescription:url:)`` as a task of
    /// an earlier run of the app.
    ///
    /// A task is active (running, as far as the session can tell) until
    /// ``BackgroundSessionReplay/finish(_:body:statusCode:headers:)`` or
    /// ``BackgroundSessionReplay/complete(_:error:resumeData:networkUnavailableReason:)`` ends it;
    /// a manager made later with the replay finds the active ones among the session's tasks and
    /// adopts them.
    public final class DownloadTask: Sendable, CustomStringConvertible {
        /// The task's identifier in its session, unique in the replay.
        public var taskIdentifier: Int { system.taskIdentifier }

        /// The task's label: Downstream labels each task with the identifier of its download
        /// (`download.id.description`), which is how a relaunched app finds its tasks again.
        public var taskDescription: String? { system.taskDescription }

        /// The download the task belongs to, read from its label; nil for a task that is not
        /// labelled with a download identifier.
        public var downloadID: Download.ID? {
            taskDescription.flatMap(UUID.init(uuidString:)).map(Download.ID.init(rawValue:))
        }

        /// The request the task was made for: what the manager asked the session for (its URL
        /// and headers), or a `GET` of the URL of a task you added.
        public let originalRequest: URLRequest

        /// The resume data the manager made the task from (Apple's resume data of an earlier
        /// task of the download); nil for a task that starts from the first byte.
        public let resumeData: Data?

        /// The networks the manager allowed the task (its request's policies); the session's
        /// for a task you added.
        public let networkAccess: NetworkAccess

        /// The earliest time the manager let the system start the task (`earliestBeginDate`);
        /// nil for as soon as it sees fit.
        public let earliestBeginDate: Date?

        /// How many bytes the manager told the system to expect
        /// (`countOfBytesClientExpectsToReceive`); nil when it did not say.
        public let expectedByteCount: Int64?

        /// Whether the task is running or suspended: it has not completed.
        public var isActive: Bool { system.isActive }

        /// The task's identifier and label, for test failures.
        public var description: String {
            "task \(taskIdentifier) (\(taskDescription ?? "no description"))"
        }

        /// What Downstream sees of the task.
        let system: ReplayedTask

        init(
            taskIdentifier: Int, taskDescription: String?, request: URLRequest, resumeData: Data?,
            options: SystemTaskOptions = SystemTaskOptions()
        ) {
            originalRequest = request
            self.resumeData = resumeData
            networkAccess = options.networkAccess
            earliestBeginDate = options.earliestBeginDate
            expectedByteCount = options.expectedByteCount
            system = ReplayedTask(
                taskIdentifier: taskIdentifier, taskDescription: taskDescription,
                url: request.url ?? URL(fileURLWithPath: "/"))
        }
    }
}
