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
/// Its parts: connections and their ends (here), answers and redirects (`+Answers`), the partial
/// file, checkpoints and the record (`+Record`).
final class SegmentedTransfer: Sendable {
    /// What the attempt is for.
    struct Setup: Sendable {
        var attempt: Int
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
    struct State {
        var map: SegmentMap
        var requests: [Int: SegmentRequest] = [:]
        /// Failures in a row, by connection.
        var failures: [Int: Int] = [:]
        /// Connections waiting to retry.
        var retries: [Int: RetryWait] = [:]
        /// How the attempt ends, once that is decided: every connection then stops.
        var end: TransferEnd?
        var rangesRefused = false
        /// Segments (by start) that started again after their overlap differed: their next
        /// request compares nothing (the bytes before them are another file's, as they were).
        var restartedSegments: Set<Int64> = []
        var lastResponse: ServerResponse?
        var hasEnded = false
        /// How many snapshots of the map were taken for the record: a snapshot older than the
        /// one saved is not saved.
        var snapshots = 0
        /// Bumped when a segment restarts below bytes the digest may have read: the digest starts
        /// again at the next save.
        var digestRestarts = 0

        /// The map as the record is to keep it.
        mutating func snapshot() -> MapSnapshot {
            snapshots += 1
            return MapSnapshot(
                sequence: snapshots, length: map.length, segments: map.saved, durablePrefix: map.durablePrefix,
                digestRestarts: digestRestarts)
        }
    }

    /// A connection waiting to retry: its timer, once it is made (after the lock).
    enum RetryWait {
        case scheduling
        case waiting(Task<Void, Never>)

        var task: Task<Void, Never>? {
            if case .waiting(let task) = self { task } else { nil }
        }
    }

    /// The map as a checkpoint saw it, to be written after the lock.
    struct MapSnapshot {
        var sequence: Int
        /// The file's length.
        var length: Int64
        var segments: [SavedSegment]
        var durablePrefix: Int64
        var digestRestarts: Int
    }

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
    let state: Locked<State>
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
        state = Locked(State(map: setup.map))
        records = Locked(Records(resume: setup.record))
    }

    var attemptNumber: Int? { setup.attempt }
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

    /// Gives `connection` its next request: the rest of its segment, a free segment, or half of
    /// the largest remaining one; nothing when no part is worth a connection.
    private func launch(_ connection: Int) {
        let work = state.withLock { state -> (SegmentRequest, DownloadEvent?)? in
            guard state.end == nil else { return nil }
            let previous = state.map.segment(of: connection)
            guard let segment = state.map.assign(connection), !segment.isComplete else { return nil }
            var to = segment.end
            if let most = setup.maximumBytesPerRequest { to = min(to, segment.next + most) }
            let overlap =
                state.restartedSegments.contains(segment.start)
                ? 0 : min(setup.overlapLength, state.map.durableBytes(before: segment.next))
            let request = SegmentRequest(
                connection: connection, segmentStart: segment.start, range: segment.next..<to, overlap: overlap,
                owner: self)
            state.requests[connection] = request
            let isNew = previous?.start != segment.start || previous?.next != segment.next
            return (request, isNew ? .segmentStarted(segment.next..<segment.end) : nil)
        }
        guard let (request, event) = work else { return }
        if let event { publish(event) }
        var urlRequest = setup.request
        urlRequest.setValue(request.rangeHeader, forHTTPHeaderField: "Range")
        urlRequest.setValue(setup.record.validator.ifRangeValue, forHTTPHeaderField: "If-Range")
        request.start(urlRequest, on: transport)
    }

    /// `count` bytes arrived for the segment at `start`: how many of them it still wants.
    func take(_ count: Int64, inSegmentAt start: Int64) -> Int64 {
        state.withLock { $0.map.receive(count, inSegmentAt: start) }
    }

    /// A request ended, with its bytes up to file offset `durable` on disk.
    func requestEnded(_ request: SegmentRequest, _ outcome: SegmentRequest.Outcome, durableTo durable: Int64) {
        let connection = request.connection
        var events: [DownloadEvent] = []
        var stops: [SegmentRequest] = []
        var next: Int?
        var receivedAfterRestart: Int64?
        var retryDelay: Duration?
        state.withLock { state in
            if state.requests[connection] === request { state.requests[connection] = nil }
            state.map.markDurable(upTo: durable, inSegmentAt: request.segmentStart)
            // Bytes taken but not written (a failed write) are asked for again.
            state.map.rewind(segmentAt: request.segmentStart)
            switch outcome {
            case .complete:
                state.failures[connection] = nil
                if let segment = state.map.segment(of: connection), segment.isComplete {
                    events.append(.segmentFinished(segment.start..<segment.end))
                }
                next = connection
            case .stopped:
                break
            case .failed(let error):
                guard state.end == nil else { break }
                let retry = state.failures[connection, default: 0] + 1
                state.failures[connection] = retry
                if case .retry(let delay) = setup.recovery.verdict(after: error, from: setup.url, retry: retry) {
                    state.retries[connection] = .scheduling
                    retryDelay = delay
                } else {
                    // No retry left, or no network: the download decides (it waits for the
                    // network, tries another URL, or fails).
                    state.end = .failed(error)
                    stops = Array(state.requests.values)
                }
            case .overlapDiffers(let reason):
                guard state.end == nil else { break }
                if setup.isNewURL {
                    // The new URL's file differs there: that segment alone starts again.
                    state.map.restart(segmentAt: request.segmentStart)
                    state.restartedSegments.insert(request.segmentStart)
                    // The digest may cover bytes that are to be replaced: it is read again as
                    // the bytes with no gap grow.
                    state.digestRestarts += 1
                    receivedAfterRestart = state.map.received
                    next = connection
                } else {
                    state.end =
                        setup.onServerFileChange == .fail
                        ? .failed(.serverFileChanged(reason)) : .restart(reason: reason)
                    stops = Array(state.requests.values)
                }
            case .rangesRefused:
                if state.end == nil {
                    state.end = .incomplete(progressed: true)
                    state.rangesRefused = true
                    stops = Array(state.requests.values)
                }
            case .endsAttempt(let end):
                if state.end == nil {
                    state.end = end
                    stops = Array(state.requests.values)
                }
            }
            if state.end != nil { state.map.release(connection) }
        }
        if let receivedAfterRestart {
            progress.update(totalBytes: receivedAfterRestart, expectedBytes: setup.map.length)
        }
        for event in events { publish(event) }
        for stop in stops { stop.cancel() }
        if let retryDelay { scheduleRetry(connection, after: retryDelay) }
        if let next { launch(next) }
        finishIfDone()
    }

    /// Starts the timer of `connection`'s retry, unless the attempt ended meanwhile.
    private func scheduleRetry(_ connection: Int, after delay: Duration) {
        let timer = Task { [clock = setup.clock] in
            try? await clock.sleep(for: delay)
            guard !Task.isCancelled else { return }
            self.retryFired(connection)
        }
        let isWanted = state.withLock { state in
            guard case .scheduling? = state.retries[connection] else { return false }
            state.retries[connection] = .waiting(timer)
            return true
        }
        if !isWanted { timer.cancel() }
    }

    private func retryFired(_ connection: Int) {
        let isWaiting = state.withLock { $0.retries.removeValue(forKey: connection) != nil }
        guard isWaiting else { return }
        launch(connection)
        finishIfDone()
    }

    /// Decides how the attempt ends and stops every connection.
    private func end(with end: TransferEnd) {
        let (stops, retries) = state.withLock { state -> ([SegmentRequest], [Task<Void, Never>]) in
            guard state.end == nil else { return ([], []) }
            state.end = end
            defer { state.retries = [:] }
            return (Array(state.requests.values), state.retries.values.compactMap(\.task))
        }
        for retry in retries { retry.cancel() }
        for stop in stops { stop.cancel() }
        finishIfDone()
    }

    /// Ends the attempt once no connection runs or waits: finished when every byte is on disk,
    /// else as decided.
    private func finishIfDone() {
        var cancelled: [Task<Void, Never>] = []
        let end = state.withLock { state -> TransferEnd? in
            guard !state.hasEnded, state.requests.isEmpty else { return nil }
            if state.end != nil {
                cancelled = state.retries.values.compactMap(\.task)
                state.retries = [:]
            }
            guard state.retries.isEmpty else { return nil }
            if state.map.isComplete {
                switch state.end {
                case nil, .cancelled?, .incomplete?: state.end = .finished
                default: break
                }
            }
            // Nothing runs, nothing waits, and bytes are missing: no part was worth a connection
            // (it cannot happen with a map that hands out every free segment), so the next
            // attempt continues.
            let end = state.end ?? .incomplete(progressed: true)
            state.hasEnded = true
            return end
        }
        for timer in cancelled { timer.cancel() }
        if let end { finish(end) }
    }
}
