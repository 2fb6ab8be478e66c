import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt of a download over several connections: the rest of a file whose length and
/// validator are known, split in segments (``SegmentMap``), each connection asking for its
/// segment with `Range` and `If-Range` (``SegmentRequest``) and writing at its own place in the
/// partial file. A request that continues bytes on disk (its segment's own, after a pause or a
/// relaunch, or a finished segment's before it) compares the overlap before them first: bytes
/// that differ mean the server's file changed, and the attempt ends to start over. On a new URL
/// (a fresh link, a mirror) only the segment whose overlap differs starts again: each other one
/// keeps its bytes.
///
/// A connection that finishes its segment takes over half of the largest remaining one. A
/// connection that fails retries its segment alone, after the retry policy's delay; when its
/// retries are spent, or an answer says the file changed, the attempt ends and every connection
/// stops. An answer with the whole file (the server ignores ranges here) ends the attempt too,
/// saying so: the download goes on over one connection. The record keeps each segment's bytes on
/// the disk, saved before the first byte is written, so a relaunch continues every segment.
///
/// Its parts: the schedule of the connections' ranges, retries and the attempt's end, a value
/// without I/O (``SegmentSchedule``), kept under the lock each connection takes per chunk and
/// acted on after it (here); answers and redirects (`+Answers`); the partial file, checkpoints
/// and the record, written under a lock of its own (`+Record`).
final class SegmentedTransfer: Sendable {
    /// What the attempt is for.
    struct Setup: Sendable {
        /// The URL asked for (before redirects); the record's validator is this URL's.
        var url: URL
        /// The request to ``url`` each connection sends, with its own `Range` and `If-Range`.
        var request: URLRequest
        /// The record as the attempt starts: validator, length, and the digest of the file's first
        /// ``ResumeRecord/durableLength`` bytes.
        var record: ResumeRecord
        var recordFile: DownloadRecordFile
        var partialPath: String
        var map: SegmentMap
        var connections: Int
        /// The most bytes one request asks for; a longer segment takes several, one after another.
        var maximumBytesPerRequest: Int64?
        /// Whether to publish `resumed(at:)` when bytes are on disk already.
        var announcesResume: Bool
        var onServerFileChange: DownloadRequest.ServerFileChangePolicy
        /// Bytes before a continued range asked for again and compared with the disk's.
        var overlapLength: Int64
        /// Whether ``url`` is not the URL the bytes on disk came from: a segment whose overlap
        /// differs then starts again alone, instead of the whole file.
        var isNewURL: Bool
        var settings: RangedTransfer.Settings
        /// Whether a failed request retries alone, or ends the attempt (no network, no retry).
        var recovery: FailureRecovery
        var clock: any Clock<Duration>
        var downloadID: DownloadID
        /// The credentials each request carries, made for it.
        var credentials = RequestCredentials.none
        /// Whether a `401` or `407` ends the attempt as a challenge for the download's
        /// authentication handler (a stale Digest nonce, say), rather than failing it.
        var answersChallenges = false
        /// Challenges answered before this attempt, in this run of the download.
        var previousChallenges = 0
    }

    /// How the attempt ended.
    struct Ending: Sendable {
        var end: TransferEnd
        /// The last response head, for the download's recovery.
        var response: ServerResponse?
        /// The server answered a range with its whole file: one connection from now on.
        var rangesRefused: Bool
    }

    /// What the connections share, under the lock each takes for every chunk: no I/O happens
    /// under it (the record is written under ``Records``' lock, after this one is released).
    typealias Schedule = SegmentSchedule<SegmentRequest>
    typealias MapSnapshot = Schedule.MapSnapshot

    /// The record, under a lock of its own that only saves and answers take: the writes (and
    /// the digest's reads of the disk) happen under it, one save at a time, never under the
    /// connections' lock.
    struct Records {
        var resume: ResumeRecord
        /// The snapshot saved last.
        var savedSequence = 0
        /// The digest restarts applied.
        var digestRestarts = 0
    }

    let setup: Setup
    let transport: any Transport
    let progress: any ProgressSink
    let publish: @Sendable (DownloadEvent) -> Void
    let observeResponse: (@Sendable (ServerResponse) -> Void)?
    let onEnd: @Sendable (Ending) -> Void
    let state: Locked<Schedule>
    let records: Locked<Records>

    init(
        _ setup: Setup, transport: any Transport, progress: any ProgressSink,
        publish: @escaping @Sendable (DownloadEvent) -> Void,
        observeResponse: (@Sendable (ServerResponse) -> Void)? = nil, onEnd: @escaping @Sendable (Ending) -> Void
    ) {
        self.setup = setup
        self.transport = transport
        self.progress = progress
        self.publish = publish
        self.observeResponse = observeResponse
        self.onEnd = onEnd
        state = Locked(
            Schedule(
                map: setup.map,
                rules: Schedule.Rules(
                    maximumBytesPerRequest: setup.maximumBytesPerRequest, overlapLength: setup.overlapLength,
                    isNewURL: setup.isNewURL, onServerFileChange: setup.onServerFileChange)))
        records = Locked(Records(resume: setup.record))
    }

    var downloadID: DownloadID { setup.downloadID }
    var limiter: BandwidthLimiter? { setup.settings.limiter }
    /// Each connection's checkpoints: after fewer bytes than one connection's, so that a kill
    /// loses little per connection.
    var checkpoints: CheckpointSettings { setup.settings.checkpoints.perConnection }
    var synchronizesToDisk: Bool { setup.settings.synchronizesToDisk }

    /// Saves the segments, prepares the partial file and starts every connection.
    func start() {
        do throws(DownloadError) {
            try prepareFile()
        } catch {
            return finish(.failed(error))
        }
        let map = state.withLock { $0.map }
        progress.begin(bytesReceived: map.received, expectedBytes: map.length)
        if setup.announcesResume, map.received > 0 {
            publish(.resumed(at: map.received))
        }
        for connection in 1...max(1, setup.connections) {
            launch(connection)
        }
        finishIfDone()
    }

    /// Stops every connection; the attempt then ends as `.cancelled` (its bytes on disk).
    func stop(keepingResumeData: Bool) {
        end(with: .cancelled)
    }

    // MARK: - Connections

    /// Gives `connection` its next request (see ``SegmentSchedule/assign(_:making:)``), and sends
    /// it.
    private func launch(_ connection: Int) {
        // Not to a server that answered `If-Range` with its whole file: the overlap guards ranges.
        let ifRange =
            setup.settings.ifRangeIgnorers.contains(setup.url) ? nil : setup.record.validator.ifRangeValue
        let work = state.withLock { schedule in
            schedule.assign(connection) { assignment in
                SegmentRequest(
                    connection: connection, segmentStart: assignment.segmentStart, range: assignment.range,
                    overlap: assignment.overlap, sendsIfRange: ifRange != nil, owner: self)
            }
        }
        guard let (request, event) = work else { return }
        if let event { publish(event) }
        var urlRequest = setup.request
        urlRequest.setValue(request.rangeHeader, forHTTPHeaderField: "Range")
        urlRequest.setValue(ifRange, forHTTPHeaderField: "If-Range")
        setup.credentials.apply(to: &urlRequest)
        request.start(urlRequest, on: transport)
    }

    /// `count` bytes arrived for the segment at `start`: how many of them it still wants.
    func take(_ count: Int64, inSegmentAt start: Int64) -> Int64 {
        state.withLock { $0.take(count, inSegmentAt: start) }
    }

    /// A request ended, with its bytes up to file offset `durable` on disk.
    func requestEnded(_ request: SegmentRequest, _ outcome: SegmentRequest.Outcome, durableTo durable: Int64) {
        let connection = request.connection
        let (recovery, url) = (setup.recovery, setup.url)
        let action = state.withLock { schedule in
            schedule.requestEnded(
                request, connection: connection, segmentStart: request.segmentStart, outcome, durableTo: durable
            ) { error, retry in
                recovery.verdict(after: error, from: url, retry: retry)
            }
        }
        if let received = action.receivedAfterRestart {
            progress.update(totalBytes: received, expectedBytes: setup.map.length)
        }
        for event in action.events { publish(event) }
        for stop in action.stops { stop.cancel() }
        if let delay = action.retryAfter { scheduleRetry(connection, after: delay) }
        if let next = action.next { launch(next) }
        finishIfDone()
    }

    /// Starts the timer of `connection`'s retry, unless the attempt ended meanwhile.
    private func scheduleRetry(_ connection: Int, after delay: Duration) {
        let timer = Task { [clock = setup.clock] in
            try? await clock.sleep(for: delay)
            guard !Task.isCancelled else { return }
            self.retryFired(connection)
        }
        // The attempt may have ended meanwhile: then the timer is not wanted.
        state.withLock { $0.retryScheduled(connection, timer: timer) }?.cancel()
    }

    private func retryFired(_ connection: Int) {
        let isWaiting = state.withLock { $0.retryFired(connection) }
        guard isWaiting else { return }
        launch(connection)
        finishIfDone()
    }

    /// Decides how the attempt ends and stops every connection.
    private func end(with end: TransferEnd) {
        let (stops, timers) = state.withLock { $0.endAttempt(end) }
        for timer in timers { timer.cancel() }
        for stop in stops { stop.cancel() }
        finishIfDone()
    }

    /// Ends the attempt once no connection runs or waits (see ``SegmentSchedule/finishIfDone()``).
    private func finishIfDone() {
        let (end, timers) = state.withLock { $0.finishIfDone() }
        for timer in timers { timer.cancel() }
        if let end { finish(end) }
    }
}
