import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One file being downloaded: its state, progress and events, and the controls to pause,
/// resume and cancel it.
///
/// Get one from ``DownloadManager/download(from:to:)``. Every method may be called in any order,
/// any number of times, from any number of tasks.
///
/// ```swift
/// let download = await manager.download(from: url, to: .directory(downloads))
/// Task {
///     for await progress in download.progress {
///         print(progress.fractionCompleted ?? 0, progress.bytesPerSecond)
///     }
/// }
/// let file = try await download.fileURL
/// ```
public actor Download {
    /// A download's identity, stable for its whole life.
    public struct ID: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The identifier's value.
        public let rawValue: UUID

        /// Creates an identifier from a stored value.
        public init(rawValue: UUID) {
            self.rawValue = rawValue
        }

        init() {
            rawValue = UUID()
        }

        public var description: String { rawValue.uuidString }
    }

    /// Settings a download takes from its manager's configuration.
    struct Settings: Sendable {
        var progressInterval: Duration
        var maximumBytesPerRequest: Int64?
        var writeBufferCapacity: Int
        var diskThrottle: DiskThrottle?
    }

    /// The download's identity.
    public nonisolated let id: ID
    /// What is downloaded, and where to.
    public nonisolated let request: DownloadRequest

    nonisolated let location: PartialLocation
    private let session: TransferSession
    private let settings: Settings
    private let requestError: DownloadError?
    private let progressReporter: ProgressReporter
    private let eventBroadcast = Broadcast<DownloadEvent>(replayLimit: 64)
    private let result = ResultWaiters<URL>()
    private let stateSnapshot = Locked(DownloadState.queued)

    private var machine = StateMachine()
    private var record: ResumeRecord?
    private var transfer: RangedTransfer?
    private var settleWaiters: [CheckedContinuation<Void, Never>] = []

    init(
        request: DownloadRequest, location: PartialLocation, session: TransferSession, settings: Settings,
        requestError: DownloadError?
    ) {
        self.id = ID()
        self.request = request
        self.location = location
        self.session = session
        self.settings = settings
        self.requestError = requestError

        var initialBytes: Int64 = 0
        var expectedBytes: Int64?
        if let url = request.url, let stored = ResumeRecord.load(from: location.recordURL), stored.url == url {
            record = stored
            initialBytes = POSIXFile.length(of: location.partialURL) ?? 0
            expectedBytes = stored.expectedLength
        }
        progressReporter = ProgressReporter(
            interval: settings.progressInterval, bytesReceived: initialBytes, expectedBytes: expectedBytes)
        eventBroadcast.publish(.queued)
    }

    // MARK: - Observing

    /// Where the download is in its life. Readable without waiting for the actor.
    public nonisolated var state: DownloadState {
        stateSnapshot.value
    }

    /// The latest progress. Readable without waiting for the actor.
    public nonisolated var currentProgress: DownloadProgress {
        progressReporter.current
    }

    /// The download's progress, as a new subscription on every access.
    ///
    /// The sequence first delivers the latest value, then updates coalesced to at most one per
    /// ``DownloadManager/Configuration/ProgressReporting/interval`` (20 per second by default),
    /// and a final value; it finishes when the download completes, fails or is cancelled. A
    /// consumer that falls behind only misses intermediate values: it never slows the transfer.
    public nonisolated var progress: AsyncStream<DownloadProgress> {
        progressReporter.broadcast.subscribe()
    }

    /// The download's events, as a new subscription on every access.
    ///
    /// Each subscription first replays the events so far (the latest 64), then delivers new ones
    /// as they happen, and finishes after the download completes, fails or is cancelled. After a
    /// failed download is resumed, a new subscription follows the new run.
    public nonisolated var events: AsyncStream<DownloadEvent> {
        eventBroadcast.subscribe()
    }

    /// The downloaded file, once the download completes.
    ///
    /// Waits for the end of the download and returns the file at its destination, or throws the
    /// ``DownloadError`` it failed with (``DownloadError/Kind/cancelled`` if it was cancelled).
    /// If the waiting task is cancelled, this throws `CancellationError` and the download goes
    /// on for everyone else; to tie a download to a task, use
    /// ``DownloadManager/downloadFile(from:to:)``.
    public nonisolated var fileURL: URL {
        get async throws {
            try await result.wait()
        }
    }

    /// The download's outcome, whatever happens to the waiting task.
    nonisolated func outcome() async -> Result<URL, DownloadError> {
        await result.waitIgnoringCancellation()
    }

    // MARK: - Controlling

    /// Pauses the download. Returns once the transfer stopped and the bytes received are on disk.
    ///
    /// A download that already has all its bytes completes instead. Pausing a download that is
    /// not running does nothing.
    public func pause() async {
        handle(machine.pause())
        await waitUntilSettled()
    }

    /// Resumes a paused or failed download from the bytes on disk, with a range request.
    ///
    /// Does nothing for a download that is running, completed or cancelled.
    public func resume() {
        if case .failed = machine.state {
            reopenForNewRun()
        }
        handle(machine.resume())
    }

    /// Cancels the download. Returns once the transfer stopped.
    ///
    /// - Parameter keepingPartialData: whether to keep the bytes received (and the record that
    ///   makes them resumable). A new download of the same URL to the same destination then
    ///   continues from them. By default they are deleted.
    public func cancel(keepingPartialData: Bool = false) async {
        handle(machine.cancel(keepingPartialData: keepingPartialData))
        await waitUntilSettled()
    }

    /// Starts the download if it is queued.
    func start() {
        handle(machine.start())
    }

    // MARK: - Performing actions

    private func handle(_ action: StateMachine.Action) {
        // The snapshot changes before the action's effects, so that a waiter woken by them
        // already reads the new state.
        stateSnapshot.withLock { $0 = machine.publicState }
        perform(action)
        if machine.isSettled, !settleWaiters.isEmpty {
            let waiters = settleWaiters
            settleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    private func perform(_ action: StateMachine.Action) {
        switch action {
        case .none:
            break
        case .startAttempt(let attempt, let kind):
            startAttempt(attempt, kind)
        case .stopAttempt:
            transfer?.stop()
        case .finalize:
            finalize()
        case .becomePaused:
            progressReporter.stop(finishing: false)
            eventBroadcast.publish(.paused)
        case .becomeFailed(let error):
            end(with: .failure(error), event: .failed(error))
        case .becomeCancelled(let keepingPartialData):
            if !keepingPartialData {
                location.removeFiles()
            }
            end(with: .failure(.cancelled), event: .cancelled)
        case .becomeCompleted(let url):
            end(with: .success(url), event: .completed(url))
        }
    }

    private func end(with outcome: Result<URL, DownloadError>, event: DownloadEvent) {
        transfer = nil
        // A failed download that is then cancelled ends a second time: reopen so that its last
        // event and progress are the cancellation's.
        reopenForNewRun()
        progressReporter.stop(finishing: true)
        eventBroadcast.publish(event)
        eventBroadcast.finish()
        result.resolve(outcome)
    }

    private func reopenForNewRun() {
        result.reset()
        progressReporter.reopen()
        eventBroadcast.reopen()
    }

    private func waitUntilSettled() async {
        guard !machine.isSettled else { return }
        await withCheckedContinuation { settleWaiters.append($0) }
    }

    private func attemptEnded(_ attempt: Int, _ outcome: RangedTransfer.Result) {
        record = outcome.record
        if transfer?.setup.attempt == attempt {
            transfer = nil
        }
        handle(machine.attemptEnded(attempt, outcome.end))
    }

    private func startAttempt(_ attempt: Int, _ kind: StateMachine.AttemptKind) {
        switch kind {
        case .run: eventBroadcast.publish(.running)
        case .restart: eventBroadcast.publish(.restarted)
        case .continuation: break
        }
        let setup: RangedTransfer.Setup
        let urlRequest: URLRequest
        do {
            (setup, urlRequest) = try prepareAttempt(attempt, kind)
        } catch {
            handle(machine.attemptEnded(attempt, .failed(error)))
            return
        }
        let transfer = RangedTransfer(
            setup, session: session, progress: progressReporter,
            publish: { [eventBroadcast] in eventBroadcast.publish($0) },
            onEnd: { [weak self] outcome in
                Task { await self?.attemptEnded(attempt, outcome) }
            })
        self.transfer = transfer
        session.start(urlRequest, handler: transfer)
    }

    /// Decides where the request starts (the partial file's real length, if its record says
    /// it belongs to this URL) and where it ends, and builds it.
    private func prepareAttempt(
        _ attempt: Int, _ kind: StateMachine.AttemptKind
    ) throws(DownloadError) -> (RangedTransfer.Setup, URLRequest) {
        if let requestError { throw requestError }
        guard let url = request.url else { throw .invalidRequest("the request has no URL") }
        try FilePlacement.prepare(request.destination)
        try FilePlacement.createDirectory(location.partialURL.deletingLastPathComponent())

        var record = self.record ?? ResumeRecord(url: url)
        var offset: Int64 = 0
        if kind != .restart, record.url == url, record.isResumable {
            offset = POSIXFile.length(of: location.partialURL) ?? 0
            if let expected = record.expectedLength, offset > expected { offset = 0 }
        }
        if offset == 0 {
            record = ResumeRecord(url: url)
            // Whatever the partial file holds is not to be continued until a response replaces it.
            record.isResumable = false
        }
        // A large file comes in bounded ranges, one request after another (see
        // `maximumBytesPerRequest`); the last range is open-ended.
        var end: Int64?
        if let length = settings.maximumBytesPerRequest {
            let candidate = offset + length
            if record.expectedLength.map({ candidate < $0 }) ?? true {
                end = candidate
            }
        }
        let plan = AttemptPlan(
            offset: offset, end: end, validator: record.validator, expectedLength: record.expectedLength,
            onServerFileChange: request.onServerFileChange)

        var urlRequest = request.urlRequest
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.setValue(plan.rangeHeader, forHTTPHeaderField: "Range")
        urlRequest.setValue(offset > 0 ? plan.validator.ifRangeValue : nil, forHTTPHeaderField: "If-Range")
        if urlRequest.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            // Byte offsets must be the file's own: ask for the body as it is stored.
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        let setup = RangedTransfer.Setup(
            attempt: attempt, plan: plan, announcesResume: kind == .run, location: location, record: record,
            writeBufferCapacity: settings.writeBufferCapacity, diskThrottle: settings.diskThrottle)
        return (setup, urlRequest)
    }

    private func finalize() {
        let name = record?.suggestedFileName ?? FileName.suggested(contentDisposition: nil, url: request.url)
        do {
            let url = try FilePlacement.place(location.partialURL, at: request.destination, suggestedName: name)
            POSIXFile.remove(location.recordURL)
            record = nil
            handle(machine.finalized(.success(url)))
        } catch {
            handle(machine.finalized(.failure(error)))
        }
    }
}
