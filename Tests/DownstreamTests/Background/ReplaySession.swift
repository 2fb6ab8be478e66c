@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A system session that runs nothing: it records what the manager asks of it, and tests replay
/// the events a real (background) session would deliver, through the manager's real router.
final class ReplaySession: SystemSession, @unchecked Sendable {
    // Safe: every stored property is guarded by `lock`.
    final class Task: SystemTask, @unchecked Sendable {
        // Safe: `isActive` is guarded by `lock`; the rest is immutable.
        let taskIdentifier: Int
        let taskDescription: String?
        let response: URLResponse?
        let request: URLRequest?
        let resumeData: Data?
        private let lock = NSLock()
        private var active = true

        init(
            identifier: Int, description: String?, response: URLResponse?, request: URLRequest? = nil,
            resumeData: Data? = nil
        ) {
            taskIdentifier = identifier
            taskDescription = description
            self.response = response
            self.request = request
            self.resumeData = resumeData
        }

        var isActive: Bool {
            get { lock.withLock { active } }
            set { lock.withLock { active = newValue } }
        }
    }

    struct Cancellation: Equatable {
        var taskIdentifier: Int
        var producingResumeData: Bool
    }

    private let lock = NSLock()
    private var started: [Task] = []
    private var cancellations: [Cancellation] = []
    private var existing: [Task]
    private var nextIdentifier = 100
    private let startedStream: AsyncStream<Task>.Continuation
    private let cancellationStream: AsyncStream<Cancellation>.Continuation
    /// Every task the manager starts, as it starts it.
    let startedTasks: AsyncStream<Task>
    /// Every cancellation the manager asks for, as it asks.
    let cancellationRequests: AsyncStream<Cancellation>
    /// The resume data a cancellation that asks for some hands back.
    let resumeDataOnCancel: Data?
    /// When set, `allTasks` answers only once this is opened (tasks of a session that is slow to
    /// answer); else at once.
    let allTasksGate: Latch

    /// - Parameters:
    ///   - existing: the tasks the session had before the process started (after a relaunch).
    init(existing: [Task] = [], resumeDataOnCancel: Data? = nil, answersAllTasks: Bool = true) {
        self.existing = existing
        self.resumeDataOnCancel = resumeDataOnCancel
        allTasksGate = Latch(isOpen: answersAllTasks)
        (startedTasks, startedStream) = AsyncStream<Task>.makeStream()
        (cancellationRequests, cancellationStream) = AsyncStream<Cancellation>.makeStream()
    }

    let supportsResumeData = true

    var startedSoFar: [Task] {
        lock.withLock { started }
    }

    var cancelled: [Cancellation] {
        lock.withLock { cancellations }
    }

    /// A response of `status` for `url`.
    static func response(_ url: URL, status: Int = 200, headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    func start(_ request: URLRequest, resumeData: Data?, downloadID: Download.ID, transfer: SystemTransfer) {
        let task = lock.withLock {
            nextIdentifier += 1
            let task = Task(
                identifier: nextIdentifier, description: downloadID.rawValue.uuidString,
                response: request.url.map { Self.response($0) }, request: request, resumeData: resumeData)
            started.append(task)
            return task
        }
        transfer.attach(task)
        startedStream.yield(task)
    }

    func cancel(_ task: any SystemTask, producingResumeData: Bool, resumeData: @escaping @Sendable (Data?) -> Void) {
        let cancellation = Cancellation(taskIdentifier: task.taskIdentifier, producingResumeData: producingResumeData)
        lock.withLock { cancellations.append(cancellation) }
        resumeData(producingResumeData ? resumeDataOnCancel : nil)
        cancellationStream.yield(cancellation)
    }

    func allTasks(_ body: @escaping @Sendable ([any SystemTask]) -> Void) {
        let gate = allTasksGate
        let existing = lock.withLock { self.existing }
        _Concurrency.Task {
            await gate.wait()
            body(existing)
        }
    }
}

extension SystemTaskRouter {
    /// Replays a task that finished: the system wrote `body` to a file and delivers it, then the
    /// task completes.
    func replayFinished(_ task: ReplaySession.Task, body: Data, directory: URL) throws {
        let file = directory.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
        try body.write(to: file)
        wrote(task, total: Int64(body.count), expected: Int64(body.count))
        finishedDownloading(task, to: file)
        #expect(!FileManager.default.fileExists(atPath: file.path), "the system's file must be moved before returning")
        task.isActive = false
        completed(task, error: nil)
    }
}
