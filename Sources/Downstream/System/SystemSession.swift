import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the system-task engine needs of a URLSession that runs download tasks: the system writes
/// the file (in a background session on Apple platforms, even while the app is not running).
///
/// `URLSystemSession` is the real one. Tests put a session of their own in its place
/// (`Configuration.makeSystemSession`) and replay recorded session events through
/// ``SystemTaskRouter``, the same path the real delegate takes; DownstreamTesting's
/// `BackgroundSessionReplay` does so for the tests of apps.
package protocol SystemSession: AnyObject, Sendable {
    /// Whether the session can make a task from resume data.
    var supportsResumeData: Bool { get }

    /// Creates a download task for `request` (with `options`' network access), or from
    /// `resumeData`, labels it with `downloadID` (its `taskDescription`, which is how a relaunched
    /// app finds it again), gives it `options`' scheduling hints, hands it to `attach` and then
    /// starts it. Never blocks the caller.
    func start(
        _ request: URLRequest, resumeData: Data?, downloadID: DownloadID, options: SystemTaskOptions,
        attach: @escaping @Sendable (any SystemTask) -> Void)

    /// Cancels `task`; with `producingResumeData`, hands the system's resume data (nil if it has
    /// none) to `resumeData` first. Never blocks the caller.
    func cancel(_ task: any SystemTask, producingResumeData: Bool, resumeData: @escaping @Sendable (Data?) -> Void)

    /// Hands every task the session has (running, suspended or finishing) to `body`.
    func allTasks(_ body: @escaping @Sendable ([any SystemTask]) -> Void)
}

/// What a download asks of the system for its task: which networks it may use, and the hints the
/// system schedules background tasks by (see ``DownloadRequest``).
package struct SystemTaskOptions: Sendable, Hashable {
    /// The request's network access (`URLRequest`'s policies).
    package var networkAccess: NetworkAccess
    /// The task's `earliestBeginDate`; nil for a task made from resume data, which goes on at once.
    package var earliestBeginDate: Date?
    /// The task's `countOfBytesClientExpectsToReceive`.
    package var expectedByteCount: Int64?

    package init(
        networkAccess: NetworkAccess = NetworkAccess(), earliestBeginDate: Date? = nil, expectedByteCount: Int64? = nil
    ) {
        self.networkAccess = networkAccess
        self.earliestBeginDate = earliestBeginDate
        self.expectedByteCount = expectedByteCount
    }
}

/// What the engine needs of one download task.
package protocol SystemTask: AnyObject, Sendable {
    var taskIdentifier: Int { get }
    /// The download identifier it was labelled with.
    var taskDescription: String? { get }
    var response: URLResponse? { get }
    /// Whether the task is running or suspended (not finishing, not completed).
    var isActive: Bool { get }
}

extension SystemTask {
    /// The download the task belongs to, from its label.
    var downloadID: DownloadID? {
        taskDescription.flatMap(UUID.init(uuidString:)).map(DownloadID.init(rawValue:))
    }
}

extension URLSessionDownloadTask: SystemTask {
    package var isActive: Bool {
        state == .running || state == .suspended
    }
}
