import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The system session a manager gets from a ``BackgroundSessionReplay``: it runs nothing and
/// tells the replay what the manager asks of it.
final class ReplayedSession: SystemSession {
    private let replay: BackgroundSessionReplay

    init(replay: BackgroundSessionReplay) {
        self.replay = replay
    }

    /// A replayed session stands for Apple's, which resumes from its resume data.
    var supportsResumeData: Bool { true }

    func start(
        _ request: URLRequest, resumeData: Data?, downloadID: Download.ID, options: SystemTaskOptions,
        attach: @escaping @Sendable (any SystemTask) -> Void
    ) {
        let task = replay.start(request, resumeData: resumeData, downloadID: downloadID, options: options)
        attach(task.system)
        replay.announce(task)
    }

    func cancel(_ task: any SystemTask, producingResumeData: Bool, resumeData: @escaping @Sendable (Data?) -> Void) {
        resumeData(producingResumeData ? replay.resumeDataOnCancel : nil)
        replay.announce(
            BackgroundSessionReplay.Cancellation(
                taskIdentifier: task.taskIdentifier, producingResumeData: producingResumeData))
    }

    func allTasks(_ body: @escaping @Sendable ([any SystemTask]) -> Void) {
        replay.listTasks(body)
    }
}
