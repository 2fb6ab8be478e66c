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
@_spi(Testing) public protocol SystemSession: AnyObject, Sendable {
    /// Whether the session can make a task from resume data.
    var supportsResumeData: Bool { get }

    /// Creates a download task for `request`, or from `resumeData`, labels it with `downloadID`
    /// (its `taskDescription`, which is how a relaunched app finds it again), hands it to `attach`
    /// and then starts it. Never blocks the caller.
    func start(
        _ request: URLRequest, resumeData: Data?, downloadID: DownloadID,
        attach: @escaping @Sendable (any SystemTask) -> Void)

    /// Cancels `task`; with `producingResumeData`, hands the system's resume data (nil if it has
    /// none) to `resumeData` first. Never blocks the caller.
    func cancel(_ task: any SystemTask, producingResumeData: Bool, resumeData: @escaping @Sendable (Data?) -> Void)

    /// Hands every task the session has (running, suspended or finishing) to `body`.
    func allTasks(_ body: @escaping @Sendable ([any SystemTask]) -> Void)
}

/// What the engine needs of one download task.
@_spi(Testing) public protocol SystemTask: AnyObject, Sendable {
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

@_spi(Testing) extension URLSessionDownloadTask: SystemTask {
    public var isActive: Bool {
        state == .running || state == .suspended
    }
}
