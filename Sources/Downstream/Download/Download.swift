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
    public typealias ID = DownloadID

    /// Settings a download takes from its manager's configuration.
    struct Settings: Sendable {
        var progressInterval: Duration
        /// How the download's engines run its requests; their clock is the download's too.
        var engine: EngineSettings
        /// The clock's readings, made once for the manager's downloads (thousands may be queued).
        var clockReadings = ClockReadings.continuous
        var authentication: AuthenticationSettings
        var urlRefresh: URLRefreshSettings
        /// How long to wait for the network before failing; nil for no limit.
        var maximumNetworkWait: Duration?
        /// Whether a delivered file takes the server's `Last-Modified` as its modification time.
        var usesServerModificationTime = true
        /// Why the manager's headers cannot be sent, if they cannot (see ``HeaderField``): every
        /// attempt then fails before it sends anything.
        var headerProblem: String?
    }

    /// The download's identity.
    public nonisolated let id: ID
    /// What is downloaded, and where to.
    public nonisolated let request: DownloadRequest

    nonisolated let location: PartialLocation

    /// The file the download appends its bytes to until it is complete; then the file is moved to
    /// the destination (the same file: a descriptor opened on it reads on).
    ///
    /// Its first bytes are the server's file from its first byte, in order, when the download uses
    /// one connection at a time: read it, never write it. Bytes are appended as they arrive
    /// (held in memory first, up to ``DownloadManager/Configuration/Storage-swift.struct/writeBufferCapacity``
    /// bytes); a resume first cuts the file to the bytes it keeps, and a restart
    /// (``DownloadEvent/restarted``) to none. A download over several connections
    /// (``DownloadRequest/maximumConnections``) writes its parts at their own offsets, leaving
    /// gaps until they are done. A download the system runs in the background keeps its bytes
    /// elsewhere until it hands them over. The place depends only on the request's URL and
    /// destination (and the manager's partials directory): a new download of the same request
    /// finds the same file.
    public nonisolated var partialFileURL: URL {
        location.partialURL
    }
    /// What the download shares with every other download of its manager.
    let context: Context
    nonisolated var engines: DownloadEngines { context.engines }
    nonisolated var settings: Settings { context.settings }
    /// The download's record in the store; nil for a request that cannot be downloaded.
    nonisolated let recordFile: DownloadRecordFile?
    /// What few downloads have, in one member (100,000 downloads may be queued): the reason the
    /// request cannot be downloaded, or the download's place in a store shared by processes.
    private nonisolated let requestErrorOrPlaceClaim: RequestErrorOrPlaceClaim?

    private enum RequestErrorOrPlaceClaim {
        case requestError(DownloadError)
        case placeClaim(PlaceClaim)
    }

    /// Why the request cannot be downloaded, if it cannot.
    var requestError: DownloadError? {
        if case .requestError(let error) = requestErrorOrPlaceClaim { error } else { nil }
    }

    /// In a store shared by processes, the download's place, held while the download may write
    /// to it.
    nonisolated var placeClaim: PlaceClaim? {
        if case .placeClaim(let claim) = requestErrorOrPlaceClaim { claim } else { nil }
    }
    /// The bytes on disk when the download was made, and the file's length if known: its
    /// progress until its ``Publication`` exists.
    nonisolated let initialBytes: Int64
    nonisolated var initialExpectedBytes: Int64? {
        initialExpectedLength < 0 ? nil : initialExpectedLength
    }
    /// -1 when unknown: an optional takes a byte more, and its padding 7 (100,000 downloads may be
    /// queued).
    private nonisolated let initialExpectedLength: Int64
    /// What other threads read without waiting for the actor, under the download's lock of
    /// ``SharedLocks/downloads`` (read and written only in ``withSnapshot(_:)``).
    // Safe: only touched in `withSnapshot`, which holds the lock.
    private nonisolated(unsafe) var snapshot: Snapshot

    /// (The one-byte members come last, together: 100,000 downloads may be queued.)
    struct Snapshot {
        /// Made when first needed (see ``Download/publication``).
        var publication: Publication?
        /// The URL in use, once it is not the request's (the sources were restored or changed).
        var url: URL?
        var priority: DownloadRequest.Priority
        var state: DownloadState
        /// Whether the download waits for a slot, holds one or needs none; its manager's
        /// scheduler follows it (see ``DownloadObserver``).
        var slotNeed: SlotNeed
        /// Whether the download's first event was `.paused` (else `.queued`): its subscribers get
        /// it from its publication, which publishes it when it is made.
        let startedPaused: Bool
    }

    /// What every download of a manager shares: one object, not a copy in each download.
    final class Context: Sendable {
        let engines: DownloadEngines
        let settings: Settings
        /// Whom the downloads tell what happens to them: their manager.
        let observer: any DownloadObserver
        /// What the manager knows of the files it delivered for downloads that download again
        /// only when the server's file changed.
        let deliveredCopies: DeliveredCopies?

        init(
            engines: DownloadEngines, settings: Settings, observer: any DownloadObserver,
            deliveredCopies: DeliveredCopies? = nil
        ) {
            self.engines = engines
            self.settings = settings
            self.observer = observer
            self.deliveredCopies = deliveredCopies
        }
    }

    /// The download's machine, holding the attempt it runs (`RunningAttempt`), the timer of a
    /// wait, and the tasks waiting for it to settle.
    typealias Machine = StateMachine<RunningAttempt, Task<Void, Never>, CheckedContinuation<Void, Never>>

    /// What the download holds once something happens to it (see ``Activity``); nil until then.
    var activity: Activity?
    /// What the download's observer counted of it in its totals; nil until it counts it.
    // Safe: only the observer reads and writes it, always under one lock of its own.
    nonisolated(unsafe) var counted: CountedProgress?
    /// Whether the download was made paused (else queued): its machine's first state.
    /// (Last: one byte after the others' ends.)
    let startsPaused: Bool

    deinit {
        // Its limit, and what the limiter counted for it, go with it.
        context.settings.engine.transfer.limiter?.forget(id)
    }

    /// - Parameter startsPaused: whether the download starts paused (restored from the store at
    ///   launch, or asked for so) instead of queued.
    init(
        id: ID, request: DownloadRequest, location: PartialLocation, context: Context,
        recordFile: DownloadRecordFile?, requestError: DownloadError?, placeClaim: PlaceClaim? = nil,
        startsPaused: Bool = false
    ) {
        self.id = id
        self.request = request
        self.location = location
        self.context = context
        let settings = context.settings
        self.recordFile = recordFile
        precondition(requestError == nil || placeClaim == nil, "a request that cannot be downloaded holds no place")
        requestErrorOrPlaceClaim = requestError.map { .requestError($0) } ?? placeClaim.map { .placeClaim($0) }
        if let limit = request.maximumBytesPerSecond, limit > 0 {
            settings.engine.transfer.limiter?.setLimit(limit, for: id)
        }
        self.startsPaused = startsPaused
        let stored = recordFile?.sourcesAndResume
        let machine = Self.firstMachine(startsPaused: startsPaused, settings: settings)
        snapshot = Snapshot(
            url: stored?.sources?.current, priority: request.priority, state: machine.publicState,
            slotNeed: machine.slotNeed, startedPaused: startsPaused)

        var initialBytes: Int64 = 0
        let resume = stored?.resume
        if let resume, resume.isResumable {
            // The partial file's real length wins over the record's: bytes are only appended.
            initialBytes = AttemptTarget.bytesOnDisk(resume, partialPath: location.path)
        }
        self.initialBytes = initialBytes
        initialExpectedLength = resume?.expectedLength ?? -1
        if let sources = stored?.sources {
            activity = Activity(machine: machine, parsedSources: sources)
        }
        context.observer.download(self, didPublish: startsPaused ? .paused : .queued)
    }

    /// Runs `body` on the snapshot, holding its lock. Takes no other lock of
    /// ``SharedLocks/downloads`` (another download's may be the same).
    nonisolated func withSnapshot<Result>(_ body: (inout Snapshot) -> Result) -> Result {
        SharedLocks.downloads.withLock(for: self) { body(&snapshot) }
    }

    // MARK: - Observing

    /// Where the download is in its life. Readable without waiting for the actor.
    public nonisolated var state: DownloadState {
        withSnapshot { $0.state }
    }

    /// The URL the download takes its file from now: the request's, a mirror, or a fresh URL
    /// given with ``setURL(_:)`` or by the URL-refresh handler. Readable without waiting for the
    /// actor. (``request`` keeps the URL the download was asked for: it is how the manager finds
    /// the download again.)
    public nonisolated var url: URL? {
        withSnapshot { $0.url } ?? request.url
    }

    /// The latest progress. Readable without waiting for the actor.
    public nonisolated var currentProgress: DownloadProgress {
        madePublication?.progressReporter.current
            ?? DownloadProgress(bytesReceived: initialBytes, expectedBytes: initialExpectedBytes)
    }

    /// The download's progress, as a new subscription on every access.
    ///
    /// The sequence first delivers the latest value, then updates coalesced to at most one per
    /// ``DownloadManager/Configuration/ProgressReporting/interval`` (20 per second by default),
    /// and a final value; it finishes when the download completes, fails or is cancelled. A
    /// consumer that falls behind only misses intermediate values: it never slows the transfer.
    public nonisolated var progress: AsyncStream<DownloadProgress> {
        progressReporter.subscribe()
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

    /// Whether a new request for the same URL and destination gets this download (resumed): it
    /// has not ended, or it failed with something to resume (not a destination that was there
    /// before the first byte: that download left no record, and a new one starts afresh).
    nonisolated var canBeJoined: Bool {
        switch state {
        case .completed, .cancelled:
            return false
        case .failed:
            guard case .failure(let error)? = result.outcome else { return true }
            return error.allowsResume
        default:
            return true
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

    /// Resumes a paused or failed download from the bytes on disk, with a range request (or, in
    /// a background session, from the system's resume data).
    ///
    /// Does nothing for a download that is running, completed or cancelled.
    public func resume() async {
        await engines.waitUntilReady()
        recoveryMemory = RecoveryMemory()
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

    /// How urgent the download is among its manager's; ``setPriority(_:)`` changes it.
    public nonisolated var priority: DownloadRequest.Priority {
        withSnapshot { $0.priority }
    }

    /// Changes how urgent the download is, queued or running; kept across relaunches.
    public func setPriority(_ priority: DownloadRequest.Priority) {
        let changed = withSnapshot { snapshot in
            defer { snapshot.priority = priority }
            return snapshot.priority != priority
        }
        guard changed else { return }
        try? recordFile?.update { $0.request.priority = priority.value }
        context.observer.download(self, didChangeSlotNeed: machine.slotNeed, priority: priority)
    }

    /// Stops the download for good, as if the process ended: a ranged request stops (its bytes
    /// are on disk), a system task goes on in the system for the next manager to adopt, and the
    /// record keeps the download's intent.
    func shutDown() async {
        let requestOutlivesProcess = machine.attemptHandle?.outlivesProcess ?? false
        handle(machine.shutDown(requestOutlivesProcess: requestOutlivesProcess))
        // A system task's end may never come now: nothing waits for it.
        guard !requestOutlivesProcess else { return }
        await waitUntilSettled()
    }

    /// Sends `event` to the download's subscribers and to its observer.
    nonisolated func publishEvent(_ event: DownloadEvent) {
        noteHistory(of: event)
        eventBroadcast.publish(event)
        context.observer.download(self, didPublish: event)
    }

    /// Tells the observer that the download's state is `state` now.
    nonisolated func announce(_ state: DownloadState) {
        context.observer.download(self, didChangeStateTo: state)
    }

    /// Gives the download's slot back (its manager's limits shrank): it stops and waits in the
    /// queue.
    func preempt() {
        handle(machine.preempt())
    }

    /// The retry timer `retry` went off.
    func retryTimerFired(_ retry: Int) {
        handle(machine.retryTimerFired(retry))
    }

    /// Starts the download if it is queued (its manager's scheduler gave it a slot).
    func start() async {
        await engines.waitUntilReady()
        startOrWaitForNetwork()
    }
}
