import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request of a segmented download (``SegmentedTransfer``): a range of one segment, asked for
/// with `Range` and `If-Range`, written at its own place in the partial file. Where the bytes just
/// before the range are on disk, it asks for them again and compares them first (the overlap), as
/// every continuation does.
///
/// It takes a chunk only as far as its segment still reaches (a takeover may have shortened it)
/// and stops its request there: that end is a success. It checkpoints its own bytes and tells its
/// transfer how it ended. The transport's events come one at a time, in order; ``cancel()`` may
/// be called from anywhere.
final class SegmentRequest: TransportReceiver, @unchecked Sendable {
    // Safe: `sink` is only touched from the transport's events, which come one at a time;
    // `control` is locked; the rest is immutable.

    /// How the request ended, for its transfer.
    enum Outcome: Equatable, Sendable {
        /// Every byte asked for is on disk, or as many as the segment still wanted.
        case complete
        /// Stopped by its transfer (pause, cancel, or another request's end).
        case stopped
        /// A failure this request alone may retry, if it is transient.
        case failed(DownloadError)
        /// The server answered the range with its whole file: it does not serve ranges here.
        case rangesRefused
        /// The server answered the range's `If-Range` with its whole file, of the version the
        /// partial holds: it serves ranges, but not with `If-Range`. Nothing was written; the
        /// range is asked for again at once, without it (see ``IfRangeIgnorers``).
        case ifRangeIgnored
        /// The bytes before the range are not those on disk: the server's file is another.
        /// Nothing was written.
        case overlapDiffers(reason: String)
        /// An answer that ends the whole attempt: the file changed on the server, say.
        case endsAttempt(TransferEnd)
    }

    private struct Sink {
        /// The partial file at the range, the bytes before the range while the body's first
        /// bytes are compared with them, checkpoints and the bandwidth limit's wait.
        var intake = BodyIntake()
        /// Just past the last byte of the body the server announced.
        var bodyEnd: Int64 = 0
        /// Set when this request decided how it ends; later bytes are dropped.
        var decided: Outcome?
        var redirects = 0
    }

    /// The connection the request runs on, and the start of its segment (the segment's name).
    let connection: Int
    let segmentStart: Int64
    /// The bytes to write.
    let range: Range<Int64>
    /// Bytes before ``range`` asked for again, to compare with the disk's before writing.
    let overlap: Int64
    /// Whether the request carries `If-Range`.
    let sendsIfRange: Bool
    private let owner: SegmentedTransfer
    private let control = RequestControl()
    private var sink = Sink()

    init(
        connection: Int, segmentStart: Int64, range: Range<Int64>, overlap: Int64 = 0, sendsIfRange: Bool,
        owner: SegmentedTransfer
    ) {
        self.connection = connection
        self.sendsIfRange = sendsIfRange
        self.segmentStart = segmentStart
        self.range = range
        self.overlap = min(max(0, overlap), range.lowerBound)
        self.owner = owner
    }

    /// The value of the `Range` header: the overlap, then the range.
    var rangeHeader: String {
        "bytes=\(range.lowerBound - overlap)-\(range.upperBound - 1)"
    }

    /// Sends `request` through `transport`.
    func start(_ request: URLRequest, on transport: any Transport) {
        control.start(request, on: transport, receiver: self)
    }

    /// Stops the request; it then ends as ``Outcome/stopped`` (unless it ended first).
    func cancel() {
        control.stop()
    }

    // MARK: - Transport events

    func willRedirect(
        _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The first request's redirects went through the redirect handler; a segment's follow
        // the same rules without asking it again.
        let previous = sink.redirects
        sink.redirects += 1
        switch owner.checkRedirect(proposed, from: response.url, previousCount: previous) {
        case .success(let request):
            if let target = request.url {
                owner.setup.recordFile.noteHistory(
                    DownloadHistoryEntry(response: response, kind: .redirect, redirectedTo: target))
            }
            answer(request)
        case .failure(let refusal):
            answer(nil)
            decide(.endsAttempt(.failed(refusal)))
        }
    }

    func didReceive(_ response: ServerResponse) {
        guard sink.decided == nil else { return }
        guard sink.intake.file == nil else {
            return decide(.failed(.unexpectedResponse("a second response to one request")))
        }
        switch owner.verdict(on: response, for: range, overlap: overlap, sentIfRange: sendsIfRange) {
        case .write(let bodyEnd):
            do {
                if overlap > 0 {
                    sink.intake.overlap = try OverlapCheck(
                        path: owner.setup.partialPath, range: range.lowerBound - overlap..<range.lowerBound)
                }
                sink.intake.file = try owner.openFile(from: range.lowerBound, length: bodyEnd - range.lowerBound)
            } catch {
                return decide(.endsAttempt(.failed(error)))
            }
            sink.bodyEnd = bodyEnd
            scheduleCheckpoint(after: range.lowerBound)
        case .refuse(let outcome):
            decide(outcome)
        }
    }

    func didReceive(_ received: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
        guard sink.decided == nil else { return .taken }
        if let answer = sink.intake.admit(
            received.count, of: task, limiter: owner.limiter, downloadID: owner.downloadID)
        {
            return answer
        }
        guard let file = sink.intake.file else { return .taken }
        // Taken whole from here on (the checks above are for the whole chunk): the repeated bytes
        // are compared, never written.
        let bytes: UnsafeRawBufferPointer
        switch sink.intake.compareOverlap(received) {
        case .differs(let overlap):
            decide(.overlapDiffers(reason: overlap.mismatch(before: range.lowerBound)))
            return .taken
        case .unreadable(let error):
            decide(.endsAttempt(.failed(error)))
            return .taken
        case .rest(let rest, _):
            guard !rest.isEmpty else { return .taken }
            bytes = rest
        }
        let wanted = Int.clamped(sink.bodyEnd - file.length, atMost: bytes.count)
        let taken = Int.clamped(owner.take(Int64(wanted), inSegmentAt: segmentStart), atMost: wanted)
        do throws(DownloadError) {
            try file.append(UnsafeRawBufferPointer(rebasing: bytes[..<taken]))
        } catch {
            decide(.failed(error))
            return .taken
        }
        owner.progress.add(Int64(taken))
        if taken < bytes.count {
            // The segment ends here (another connection took the rest), or the body went on past
            // its announced end: this request has what it wanted.
            decide(.complete)
        } else if sink.intake.checkpoints.isDue(at: file.length) {
            checkpoint()
        }
        return .taken
    }

    func didComplete(_ failure: TransportFailure?) {
        let task = control.end()
        var outcome = sink.decided ?? outcome(of: failure)
        var durable = range.lowerBound
        if let (written, failure) = sink.intake.close(
            task, limiter: owner.limiter, synchronizes: owner.synchronizesToDisk)
        {
            if let failure, outcome == .complete { outcome = .failed(failure) }
            durable = written
        }
        owner.requestEnded(self, outcome, durableTo: durable)
    }

    // MARK: - Private

    private func outcome(of failure: TransportFailure?) -> Outcome {
        if let failure {
            if failure.isCancellation, control.isStopRequested { return .stopped }
            return .failed(.network(failure))
        }
        guard let file = sink.intake.file else {
            return .failed(.unexpectedResponse("the request ended without a response"))
        }
        guard file.length >= sink.bodyEnd else {
            return .failed(
                .unexpectedResponse(
                    "the body ended after \(file.length - range.lowerBound) of \(sink.bodyEnd - range.lowerBound) bytes"
                ))
        }
        return .complete
    }

    /// Decides how the request ends and stops it; later bytes are dropped.
    private func decide(_ outcome: Outcome) {
        guard sink.decided == nil else { return }
        sink.decided = outcome
        control.cancel()
    }

    private func checkpoint() {
        do throws(DownloadError) {
            let durable = try sink.intake.checkpoint(
                synchronizes: owner.synchronizesToDisk, settings: owner.checkpoints)
            try owner.checkpoint(segmentAt: segmentStart, durableTo: durable)
        } catch {
            decide(.failed(error))
        }
    }

    private func scheduleCheckpoint(after offset: Int64) {
        sink.intake.checkpoints.restart(after: offset, owner.checkpoints)
    }
}
