import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A background session that runs nothing, for the tests of an app's background downloads: you
/// see the tasks a `DownloadManager` starts and the cancellations it asks for, and play the
/// system's part, delivering what it would deliver.
///
/// Install the replay in the manager's configuration, in place of the system's background
/// session. The manager then works as with a real one (on Linux too, where background sessions
/// do not exist): its downloads become download tasks of the replay, which you drive.
///
/// ```swift
/// let replay = BackgroundSessionReplay()
/// var configuration = DownloadManager.Configuration(identifier: "com.example.app.\(UUID())")
/// configuration.storage.directory = store  // the test's own
/// configuration.background = .init(sessionIdentifier: "com.example.app.background")
/// replay.install(in: &configuration)
/// let manager = try DownloadManager(configuration: configuration)
///
/// let download = await manager.download(from: url, to: .directory(downloads))
/// let task = try #require(await replay.startedTask(0))
/// replay.write(task, totalBytes: 40_000, expectedBytes: 100_000)
/// try replay.finish(task, body: body)  // the system wrote the file and hands it over
/// let file = try await download.fileURL
/// ```
///
/// A replay is the system's session, which outlives the app: make a second manager with the same
/// configuration (after `invalidate()` on the first, or in place of an app that was not running)
/// and it finds the session's active tasks and adopts them, as a relaunched app does. Tasks of an
/// earlier run can also be added with ``addTask(taskIdentifier:taskDescription:url:)``. Events go
/// to the last manager made with the replay: make it before you replay what happened while the
/// app was not running, as the system delivers those events once the relaunched app made its
/// session.
///
/// Replay events one at a time, in the order the system would deliver them (it delivers them on
/// one serial queue). Each returns once the manager has taken it in; its downloads then react on
/// their own, so await what you check: a download's `fileURL`, its events, or the system's
/// completion handler.
public final class BackgroundSessionReplay: Sendable {
    private let state: Locked
    private let started = ArrivalLog<DownloadTask>()
    private let cancelled = ArrivalLog<Cancellation>()
    /// The resume data a cancellation that asks for some hands back.
    let resumeDataOnCancel: Data?
    /// Where the "system" writes the files of finished tasks.
    private let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("BackgroundSessionReplay-\(UUID().uuidString)", isDirectory: true)

    /// Creates a replayed session with no tasks.
    ///
    /// - Parameters:
    ///   - resumeDataOnCancel: what a cancellation that asks for resume data (a pause) hands back
    ///     as Apple's resume data; nil (the default) for none, as when the system has none.
    ///   - holdsTaskList: whether the session keeps a manager waiting for the list of its tasks
    ///     (which a manager asks for when it is made, to adopt the tasks of an earlier run) until
    ///     ``releaseTaskList()``, as a session that is slow to answer. Default: false, it answers
    ///     at once.
    public init(resumeDataOnCancel: Data? = nil, holdsTaskList: Bool = false) {
        self.resumeDataOnCancel = resumeDataOnCancel
        state = Locked(isTaskListHeld: holdsTaskList)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Making managers

    /// Makes a manager made with `configuration` use this replay as its background session.
    ///
    /// The configuration keeps its `background` settings (their session identifier is the one
    /// the manager's `handleEventsForBackgroundURLSession(identifier:completionHandler:)` and
    /// `backgroundEventsHandled(forSessionIdentifier:)` answer to); a configuration without them
    /// gets a session named `<identifier>.background`. Background sessions exist on Apple
    /// platforms only, but a replayed one exists everywhere: the manager does not look at
    /// `background.onUnsupportedPlatform`.
    public func install(in configuration: inout DownloadManager.Configuration) {
        if configuration.background == nil {
            configuration.background = .init(sessionIdentifier: "\(configuration.identifier).background")
        }
        configuration.makeSystemSession = { [self] router in
            state.withLock { $0.router = router }
            return ReplayedSession(replay: self)
        }
    }

    // MARK: - Tasks

    /// Adds a task to the session, as if an earlier run of the app had started it: a manager
    /// made afterwards finds it among the session's tasks (while it is active) and adopts it if
    /// one of its downloads has the identifier in `taskDescription`; else cancels it, or keeps
    /// the file it finishes with, and reports it in the manager's `unclaimedTasks`.
    ///
    /// - Parameters:
    ///   - taskIdentifier: the task's identifier; by default, one above every identifier the
    ///     replay has given.
    ///   - taskDescription: the task's label: the download's identifier
    ///     (`download.id.description`) for a task of a download, anything else for a task no
    ///     download claims.
    ///   - url: the URL the task downloads.
    @discardableResult
    public func addTask(taskIdentifier: Int? = nil, taskDescription: String?, url: URL) -> DownloadTask {
        state.withLock { state in
            let identifier = taskIdentifier ?? state.nextTaskIdentifier
            precondition(
                !state.tasks.contains { $0.taskIdentifier == identifier },
                "the replay has a task \(identifier) already")
            let task = DownloadTask(
                taskIdentifier: identifier, taskDescription: taskDescription, request: URLRequest(url: url),
                resumeData: nil)
            state.add(task)
            return task
        }
    }

    /// Every task of the session, in the order it got them: those you added and those managers
    /// started.
    public var tasks: [DownloadTask] {
        state.withLock { $0.tasks }
    }

    /// The tasks managers started, in order.
    public var startedTasks: [DownloadTask] {
        started.all
    }

    /// Waits until managers have started at least `index + 1` tasks, and returns task number
    /// `index` (0-based) of ``startedTasks``.
    ///
    /// - Returns: nil if `timeout` passes or the waiting task is cancelled first, so that a
    ///   failing test ends instead of hanging.
    public func startedTask(_ index: Int, timeout: Duration = .seconds(60)) async -> DownloadTask? {
        await started.element(at: index, timeout: timeout)
    }

    /// The cancellations managers asked for, in order.
    ///
    /// A cancellation does not end the task: the system confirms it with the task's completion,
    /// which you replay with ``complete(_:error:resumeData:networkUnavailableReason:)`` and `.cancelled`.
    public var cancellations: [Cancellation] {
        cancelled.all
    }

    /// Waits until managers have asked for at least `index + 1` cancellations, and returns
    /// number `index` (0-based) of ``cancellations``.
    ///
    /// - Returns: nil if `timeout` passes or the waiting task is cancelled first.
    public func cancellation(_ index: Int, timeout: Duration = .seconds(60)) async -> Cancellation? {
        await cancelled.element(at: index, timeout: timeout)
    }

    /// Answers the managers waiting for the list of the session's tasks, for a replay made with
    /// `holdsTaskList: true`; later requests for the list are answered at once.
    public func releaseTaskList() {
        let waiting = state.withLock { state in
            state.isTaskListHeld = false
            defer { state.taskListRequests = [] }
            return state.taskListRequests
        }
        let active = activeTasks()
        for answer in waiting {
            answer(active)
        }
        if !waiting.isEmpty {
            deliverPendingCompletions()
        }
    }

    // MARK: - Events

    /// Replays that the system wrote bytes of `task`: `totalBytes` so far, of `expectedBytes`
    /// (nil when the length is unknown).
    public func write(_ task: DownloadTask, totalBytes: Int64, expectedBytes: Int64?) {
        router().wrote(task.system, total: totalBytes, expected: expectedBytes ?? -1)
    }

    /// Replays that the system resumed `task` from its resume data at `offset`: the bytes before
    /// it were on disk already, of `expectedBytes` (nil when the length is unknown).
    public func resume(_ task: DownloadTask, atOffset offset: Int64, expectedBytes: Int64?) {
        router().resumed(task.system, at: offset, expected: expectedBytes ?? -1)
    }

    /// Replays that `task` finished downloading: the system got a response of `statusCode` with
    /// `headers`, wrote `body` to a temporary file of its own and hands the file over, then the
    /// task completes without an error.
    ///
    /// This is also how a task that finished while the app was not running is delivered after a
    /// relaunch, without ``write(_:totalBytes:expectedBytes:)`` events before it. An error status
    /// makes the download fail with that status, as a real session's error page does.
    ///
    /// - Throws: an error of the file system if the file cannot be written;
    ///   ``FileNotMoved`` if the manager left the file where the system put it (the system
    ///   deletes it once it has handed it over, and so does the replay).
    public func finish(
        _ task: DownloadTask, body: Data, statusCode: Int = 200, headers: [String: String] = [:]
    ) throws {
        let router = router()
        task.system.respond(status: statusCode, headers: headers)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
        // Not `Data.write(to:)`, which ends with an `fsync` on Linux: the system's file is no
        // more durable than this.
        try body.writeWithoutSync(to: file)
        router.finishedDownloading(task.system, to: file)
        let isLeft = FileManager.default.fileExists(atPath: file.path)
        if isLeft {
            try? FileManager.default.removeItem(at: file)
        }
        complete(task)
        if isLeft {
            throw FileNotMoved(taskIdentifier: task.taskIdentifier)
        }
    }

    /// Replays that `task` completed: without an error after it finished (see
    /// ``finish(_:body:statusCode:headers:)``), or with the `URLError` code `error`: `.cancelled`
    /// to confirm a cancellation, or a failure of the network (`.networkConnectionLost`,
    /// `.timedOut`…). The task is no longer active.
    ///
    /// - Parameters:
    ///   - task: the task that completed.
    ///   - error: how it failed; nil (the default) for no error.
    ///   - resumeData: Apple's resume data in the error (with an `error` only), as the system gives
    ///     it with a failure it can resume from; the download keeps it and makes its next task
    ///     from it.
    ///   - networkUnavailableReason: the network policy that kept the task off the network there
    ///     is (with an `error` only, such as `.notConnectedToInternet`), in the error as Apple's
    ///     `NSURLErrorNetworkUnavailableReasonKey`: the download waits for a network the policy
    ///     allows.
    public func complete(
        _ task: DownloadTask, error: URLError.Code? = nil, resumeData: Data? = nil,
        networkUnavailableReason: NetworkUnavailableReason? = nil
    ) {
        let router = router()
        task.system.end()
        let failure = error.map { code in
            var userInfo: [String: Any] = [:]
            userInfo[URLSessionDownloadTaskResumeDataKey] = resumeData
            userInfo[NetworkUnavailableReason.userInfoKey] = networkUnavailableReason?.rawValue
            return NSError(domain: NSURLErrorDomain, code: code.rawValue, userInfo: userInfo)
        }
        router.completed(task.system, error: failure)
    }

    /// Replays that the session delivered every event of this wake of the app
    /// (`urlSessionDidFinishEvents(forBackgroundURLSession:)`): the manager calls the system's
    /// completion handler once the downloads that finished meanwhile have their files in place.
    public func finishEvents() {
        router().sessionFinishedEvents()
    }

    // MARK: - The session's side

    /// A task the manager starts.
    func start(
        _ request: URLRequest, resumeData: Data?, downloadID: Download.ID, options: SystemTaskOptions
    ) -> DownloadTask {
        state.withLock { state in
            let task = DownloadTask(
                taskIdentifier: state.nextTaskIdentifier, taskDescription: downloadID.description, request: request,
                resumeData: resumeData, options: options)
            state.add(task)
            return task
        }
    }

    /// Publishes `task` as started, once the manager knows it.
    func announce(_ task: DownloadTask) {
        started.append(task)
    }

    /// Publishes a cancellation, once its resume data was handed back.
    func announce(_ cancellation: Cancellation) {
        cancelled.append(cancellation)
    }

    /// Hands the active tasks to `answer`, now or once the list is released.
    func listTasks(_ answer: @escaping @Sendable ([any SystemTask]) -> Void) {
        let isHeld = state.withLock { state in
            if state.isTaskListHeld {
                state.taskListRequests.append(answer)
            }
            return state.isTaskListHeld
        }
        guard !isHeld else { return }
        let active = activeTasks()
        // As a real session does, answer later, on a queue of its own; then deliver what
        // happened while no manager played the session.
        DispatchQueue.global().async {
            answer(active)
            self.deliverPendingCompletions()
        }
    }

    /// Keeps the completion of `task` with `error` for the next manager, delivered once it has
    /// listed the session's tasks.
    func deliverLater(_ task: DownloadTask, error: NSError) {
        task.system.end()
        state.withLock { $0.pendingCompletions.append((task, error)) }
    }

    /// Delivers the completions kept for the manager that listed the tasks last.
    private func deliverPendingCompletions() {
        let pending = state.withLock { state in
            defer { state.pendingCompletions = [] }
            return state.pendingCompletions
        }
        for (task, error) in pending {
            router().completed(task.system, error: error)
        }
    }

    private func activeTasks() -> [any SystemTask] {
        state.withLock { $0.tasks }.map(\.system).filter(\.isActive)
    }

    /// The router of the last manager made with the replay.
    private func router() -> SystemTaskRouter {
        guard let router = state.withLock({ $0.router }) else {
            preconditionFailure(
                "BackgroundSessionReplay: no manager plays this session; make a manager with a configuration "
                    + "the replay was installed in (install(in:)), and keep it while you replay events")
        }
        return router
    }
}

extension BackgroundSessionReplay {
    /// The replay's mutable state, behind a lock.
    private final class Locked: @unchecked Sendable {
        // Safe: `state` is only touched while `lock` is held.
        struct State {
            var tasks: [DownloadTask] = []
            var nextTaskIdentifier = 1
            var isTaskListHeld: Bool
            var taskListRequests: [@Sendable ([any SystemTask]) -> Void] = []
            /// Completions for the next manager (see `cancelBySystem`).
            var pendingCompletions: [(task: DownloadTask, error: NSError)] = []
            /// The last manager's router; weak, as the router holds the session, which holds the
            /// replay.
            weak var router: SystemTaskRouter?

            mutating func add(_ task: DownloadTask) {
                tasks.append(task)
                nextTaskIdentifier = max(nextTaskIdentifier, task.taskIdentifier + 1)
            }
        }

        private let lock = NSLock()
        private var state: State

        init(isTaskListHeld: Bool) {
            state = State(isTaskListHeld: isTaskListHeld)
        }

        func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
            lock.lock()
            defer { lock.unlock() }
            return try body(&state)
        }
    }
}
