import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request of a download through the ranged engine, over any ``Transport``: it decides what
/// to do with the response, writes the body into the partial file in the order it arrives, keeps
/// the resume record, and reports how the request ended.
///
/// The transport's events arrive one at a time, in order (see ``TransportReceiver``), which is
/// what orders the writes; the per-chunk path is a `memcpy` into the partial file's buffer and a
/// progress count. ``start(_:)`` and ``stop()`` may be called from anywhere.
///
/// Its parts: the response (`+Response`: decision, space, the record written before the first
/// byte), the body (`+Body`: overlap check, writes, digest, checkpoints), redirects
/// (`+Redirects`) and the end (`+End`).
final class RangedTransfer: TransportReceiver, @unchecked Sendable {
    // Safe: `sink` and `redirectCount` are only touched from the transport's events, which come
    // one at a time; `control` and `refusal` are locked; the rest is immutable.

    /// How a manager's transfers write and follow redirects: made once from its configuration.
    struct Settings: Sendable {
        var writeBufferCapacity: Int
        var checkpoints: CheckpointSettings
        /// Whether checkpoints and ends put the bytes on the disk (`fsync`), not only in the file.
        var synchronizesToDisk: Bool
        var disk: (any DiskSimulation)?
        var redirects: RedirectSettings
        /// Whether responses' digests of the whole file are kept with the partial file, and
        /// checked (see `DownloadManager.Configuration.Integrity`).
        var verifiesServerDigests = true
        /// How partial files are marked for the system (backups, data protection).
        var marker = FileMarker()
        /// The manager's bandwidth limits (one object for all its transfers).
        var limiter: BandwidthLimiter?
        /// The servers that answered `If-Range` with their whole file, for the manager's life (one
        /// object for all its transfers).
        var ifRangeIgnorers = IfRangeIgnorers()
    }

    /// What one request is for.
    struct Setup: Sendable {
        /// The URL asked for (before redirects).
        var url: URL
        var plan: AttemptPlan
        /// Whether to publish `resumed(at:)` when the response continues the partial file (not
        /// for each range of a file that comes in several).
        var announcesResume: Bool
        var partialPath: String
        /// Whether the file takes the name the server suggests (a directory destination).
        var namesFile: Bool
        /// For a file named by the server that may not replace a file there (a directory
        /// destination whose conflict policy is `fail`), its directory: a name the response gives
        /// that is taken fails the request before its first byte is written.
        var refusesTakenNameIn: String? = nil
        /// What the engine knows of the partial file as the request starts.
        var record: ResumeRecord
        /// Where that knowledge is saved: on each response, at checkpoints and at the end.
        var recordFile: DownloadRecordFile
        var settings: Settings
        var downloadID: DownloadID
        /// Whether a `401` or `407` is a challenge to hand to the download (an authentication
        /// handler answers it), rather than a failure.
        var answersChallenges: Bool
        /// Challenges answered before this request, in this run of the download.
        var previousChallenges: Int
        /// The algorithm of the request's expected digest, if it expects one: the file is hashed
        /// with it, else with the server's digest's (``ResumeRecord/serverDigest``).
        var expectedAlgorithm: Digest.Algorithm? = nil
        /// Whether a body refused for its length (``DownloadError/Kind/fileTooLarge``) is deleted,
        /// rather than kept for inspection.
        var discardsRejectedFile = true
        /// The credentials the request carries, made again for the request of a redirect.
        var credentials = RequestCredentials.none
        /// The file at the destination the request continues (``AttemptPlan/continuedFile``): it
        /// becomes the partial file once the overlap matched, and is left as it is otherwise.
        var existingFile: ExistingFile? = nil
    }

    /// The state of the response being written.
    struct Sink {
        var record: ResumeRecord
        /// The partial file, the overlap the body starts with (nothing is written or recorded
        /// until it matched), checkpoints and the bandwidth limit's wait.
        var intake = BodyIntake()
        var body: ResponseDecision.BodyPlan?
        /// The response whose body is written, kept until the overlap matched.
        var accepted: (head: ResponseHead, response: ServerResponse)?
        /// The last response head received (a refusal, say), for the end's report.
        var lastResponse: ServerResponse?
        /// Set when this transfer decided how the request ends (a rejected response, a failed
        /// write); later body bytes are dropped.
        var decidedEnd: TransferEnd?
        /// Redirects followed by this request.
        var redirects = 0
    }

    let setup: Setup
    let progress: any ProgressSink
    let publish: @Sendable (DownloadEvent) -> Void
    /// Sees every response head, for event monitors.
    let observeResponse: (@Sendable (ServerResponse) -> Void)?
    let onEnd: @Sendable (TransferEnd, ServerResponse?) -> Void
    let control = RequestControl()
    /// A redirect refused by the redirect handler: the redirect response is then delivered as the
    /// response, and fails the request with this.
    private let refusal = Locked<DownloadError?>(nil)
    var sink: Sink

    init(
        _ setup: Setup, progress: any ProgressSink, publish: @escaping @Sendable (DownloadEvent) -> Void,
        observeResponse: (@Sendable (ServerResponse) -> Void)? = nil,
        onEnd: @escaping @Sendable (TransferEnd, ServerResponse?) -> Void
    ) {
        self.setup = setup
        self.progress = progress
        self.publish = publish
        self.observeResponse = observeResponse
        self.onEnd = onEnd
        self.sink = Sink(record: setup.record)
    }

    /// Sends `request` through `transport`.
    func start(_ request: URLRequest, on transport: any Transport) {
        control.start(request, on: transport, receiver: self)
    }

    /// Asks the request to stop (pause or cancel). It then ends as `.cancelled`, or otherwise if
    /// it ended before the cancellation took effect.
    func stop() {
        control.stop()
    }

    /// The redirect refused by the redirect handler, if one was.
    var refusedRedirect: DownloadError? {
        get { refusal.withLock { $0 } }
        set { refusal.withLock { $0 = newValue } }
    }

    // MARK: - Transport events

    func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
        guard sink.decidedEnd == nil else { return .taken }
        if let answer = sink.intake.admit(
            bytes.count, of: task, limiter: setup.settings.limiter, downloadID: setup.downloadID)
        {
            return answer
        }
        receive(bytes)
        if sink.decidedEnd != nil {
            control.cancel()
        }
        return .taken
    }

    /// Decides how the request ends, whatever the server sends next, and stops it.
    func reject(_ end: TransferEnd) {
        if case .failed(let error) = end, error.kind == .serverFileChanged {
            // The partial file holds another version of the file: kept (the request said to fail
            // rather than discard it) but never continued; resuming starts over.
            sink.record = .startingOver(url: setup.url)
        }
        sink.decidedEnd = end
        control.cancel()
    }
}
