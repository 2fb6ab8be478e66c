/// The schedule of a segmented attempt as a value: which range each connection asks for next,
/// what the end of a request leads to (the next range, a retry of the segment alone, the end of
/// the attempt), and when the attempt is over. No I/O happens here: ``SegmentedTransfer`` keeps
/// it under the lock each connection takes per chunk, and acts on its answers after the lock.
///
/// It holds what it schedules: the request of each connection (`Request`) and the timer of each
/// retry, and hands them over in its answers (to stop or cancel).
struct SegmentSchedule<Request: AnyObject & Sendable> {
    /// What the attempt's requests follow.
    struct Rules: Sendable {
        /// The most bytes one request asks for; a longer segment takes several, one after another.
        var maximumBytesPerRequest: Int64?
        /// Bytes before a continued range asked for again and compared with the disk's.
        var overlapLength: Int64
        /// Whether the URL is not the one the bytes on disk came from: a segment whose overlap
        /// differs then starts again alone, instead of the whole file.
        var isNewURL: Bool
        var onServerFileChange: DownloadRequest.ServerFileChangePolicy
    }

    /// The next request of a connection.
    struct Assignment {
        var connection: Int
        /// The start of its segment (the segment's name).
        var segmentStart: Int64
        /// The bytes to write.
        var range: Range<Int64>
        /// Bytes before `range` to ask for again and compare.
        var overlap: Int64
    }

    /// A connection waiting to retry: its timer, once it is made (after the lock).
    enum RetryWait {
        case scheduling
        case waiting(Task<Void, Never>)

        var timer: Task<Void, Never>? {
            if case .waiting(let timer) = self { timer } else { nil }
        }
    }

    /// What the end of a request leads to, to do after the lock.
    struct RequestEndedAction {
        /// Segments that finished.
        var events: [DownloadEvent] = []
        /// Requests to stop: the attempt ends.
        var stops: [Request] = []
        /// The connection to give its next range now.
        var next: Int?
        /// The connection retries after this delay (its timer goes to ``retryScheduled(_:timer:)``).
        var retryAfter: Duration?
        /// A segment started again: the bytes received now.
        var receivedAfterRestart: Int64?
    }

    /// The map as a checkpoint saw it, to be written after the lock.
    struct MapSnapshot {
        var sequence: Int
        /// The file's length.
        var length: Int64
        var segments: [SavedSegment]
        var durablePrefix: Int64
        /// How many times a segment restarted below bytes a digest may have read.
        var digestRestarts: Int
    }

    let rules: Rules
    private(set) var map: SegmentMap
    private var requests: [Int: Request] = [:]
    /// Failures in a row, by connection.
    private var failures: [Int: Int] = [:]
    /// Connections waiting to retry.
    private var retries: [Int: RetryWait] = [:]
    /// How the attempt ends, once that is decided: every connection then stops.
    private var end: TransferEnd?
    /// The server answered a range with its whole file.
    private(set) var rangesRefused = false
    /// Segments (by start) that started again after their overlap differed: their next request
    /// compares nothing (the bytes before them are another file's, as they were).
    private var restartedSegments: Set<Int64> = []
    private var hasEnded = false
    /// How many snapshots of the map were taken: a snapshot older than the one saved is not saved.
    private var snapshots = 0
    /// Bumped when a segment restarts below bytes the digest may have read.
    private var digestRestarts = 0
    /// The last response head of any request, for the download's recovery.
    var lastResponse: ServerResponse?

    init(map: SegmentMap, rules: Rules) {
        self.map = map
        self.rules = rules
    }

    // MARK: - Requests

    /// Gives `connection` its next range: the rest of its segment, a free segment, or half of the
    /// largest remaining one; nil when no part is worth a connection, or the attempt ends. The
    /// request `make` makes for it is the connection's from now on; the event says a segment
    /// started anew.
    mutating func assign(_ connection: Int, making make: (Assignment) -> Request) -> (Request, DownloadEvent?)? {
        guard end == nil else { return nil }
        let previous = map.segment(of: connection)
        guard let segment = map.assign(connection), !segment.isComplete else { return nil }
        var to = segment.end
        if let most = rules.maximumBytesPerRequest { to = min(to, segment.next + most) }
        let overlap =
            restartedSegments.contains(segment.start)
            ? 0 : min(rules.overlapLength, map.durableBytes(before: segment.next))
        let request = make(
            Assignment(connection: connection, segmentStart: segment.start, range: segment.next..<to, overlap: overlap))
        requests[connection] = request
        let isNew = previous?.start != segment.start || previous?.next != segment.next
        return (request, isNew ? .segmentStarted(segment.next..<segment.end) : nil)
    }

    /// `count` bytes arrived for the segment at `start`: how many of them it still wants.
    mutating func take(_ count: Int64, inSegmentAt start: Int64) -> Int64 {
        map.receive(count, inSegmentAt: start)
    }

    /// The request of `connection` for the segment at `segmentStart` ended with `outcome`, its
    /// bytes up to file offset `durable` on disk. `verdict` says whether a failure is retried
    /// (after how long) given its number in a row.
    mutating func requestEnded(
        _ request: Request, connection: Int, segmentStart: Int64, _ outcome: SegmentRequest.Outcome,
        durableTo durable: Int64, verdict: (DownloadError, Int) -> FailureRecovery.Verdict
    ) -> RequestEndedAction {
        var action = RequestEndedAction()
        if requests[connection] === request { requests[connection] = nil }
        map.markDurable(upTo: durable, inSegmentAt: segmentStart)
        // Bytes taken but not written (a failed write) are asked for again.
        map.rewind(segmentAt: segmentStart)
        switch outcome {
        case .complete:
            failures[connection] = nil
            if let segment = map.segment(of: connection), segment.isComplete {
                action.events.append(.segmentFinished(segment.start..<segment.end))
            }
            action.next = connection
        case .stopped:
            break
        case .failed(let error):
            guard end == nil else { break }
            let retry = failures[connection, default: 0] + 1
            failures[connection] = retry
            if case .retry(let delay) = verdict(error, retry) {
                retries[connection] = .scheduling
                action.retryAfter = delay
            } else {
                // No retry left, or no network: the download decides (it waits for the network,
                // tries another URL, or fails).
                action.stops = decideEnd(.failed(error))
            }
        case .overlapDiffers(let reason):
            guard end == nil else { break }
            if rules.isNewURL {
                // The new URL's file differs there: that segment alone starts again.
                map.restart(segmentAt: segmentStart)
                restartedSegments.insert(segmentStart)
                // The digest may cover bytes that are to be replaced: it is read again as the
                // bytes with no gap grow.
                digestRestarts += 1
                action.receivedAfterRestart = map.received
                action.next = connection
            } else {
                action.stops = decideEnd(
                    rules.onServerFileChange == .fail ? .failed(.serverFileChanged(reason)) : .restart(reason: reason))
            }
        case .ifRangeIgnored:
            if end == nil {
                action.next = connection
            }
        case .rangesRefused:
            if end == nil {
                rangesRefused = true
                action.stops = decideEnd(.incomplete(progressed: true))
            }
        case .endsAttempt(let decided):
            if end == nil {
                action.stops = decideEnd(decided)
            }
        }
        if end != nil { map.release(connection) }
        return action
    }

    /// The timer of `connection`'s retry was made: kept, or returned to be cancelled when the
    /// attempt ended meanwhile.
    mutating func retryScheduled(_ connection: Int, timer: Task<Void, Never>) -> Task<Void, Never>? {
        guard case .scheduling? = retries[connection] else { return timer }
        retries[connection] = .waiting(timer)
        return nil
    }

    /// The retry timer of `connection` went off: whether it still waited (then it asks again).
    mutating func retryFired(_ connection: Int) -> Bool {
        retries.removeValue(forKey: connection) != nil
    }

    /// Decides how the attempt ends, unless it was decided: returns the requests to stop and the
    /// retry timers to cancel.
    mutating func endAttempt(_ decided: TransferEnd) -> (stops: [Request], timers: [Task<Void, Never>]) {
        guard end == nil else { return ([], []) }
        let timers = retries.values.compactMap(\.timer)
        retries = [:]
        return (decideEnd(decided), timers)
    }

    /// How the attempt ended, once no connection runs or waits (nil before, and after it was
    /// said once): finished when every byte is on disk, else as decided. Returns the retry timers
    /// to cancel too.
    mutating func finishIfDone() -> (end: TransferEnd?, timers: [Task<Void, Never>]) {
        guard !hasEnded, requests.isEmpty else { return (nil, []) }
        var timers: [Task<Void, Never>] = []
        if end != nil {
            timers = retries.values.compactMap(\.timer)
            retries = [:]
        }
        guard retries.isEmpty else { return (nil, timers) }
        if map.isComplete {
            switch end {
            case nil, .cancelled?, .incomplete?: end = .finished
            default: break
            }
        }
        hasEnded = true
        // Nothing runs, nothing waits, and bytes are missing: no part was worth a connection (it
        // cannot happen with a map that hands out every free segment), so the next attempt
        // continues.
        return (end ?? .incomplete(progressed: true), timers)
    }

    // MARK: - The record

    /// The segment at `start` has its bytes up to file offset `durable` on disk: the map to save.
    mutating func checkpoint(segmentAt start: Int64, durableTo durable: Int64) -> MapSnapshot {
        map.markDurable(upTo: durable, inSegmentAt: start)
        return snapshot()
    }

    /// The map as the record is to keep it.
    mutating func snapshot() -> MapSnapshot {
        snapshots += 1
        return MapSnapshot(
            sequence: snapshots, length: map.length, segments: map.saved, durablePrefix: map.durablePrefix,
            digestRestarts: digestRestarts)
    }

    /// Decides the attempt's end: every request stops.
    private mutating func decideEnd(_ decided: TransferEnd) -> [Request] {
        end = decided
        return Array(requests.values)
    }
}
