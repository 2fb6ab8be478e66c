import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request of a download through the ranged engine: it decides what to do with the response,
/// writes the body into the partial file in the order it arrives, keeps the resume record, and
/// reports how the request ended.
///
/// Everything but ``attach(_:)`` and ``stop()`` runs on the session's serial delegate queue, which
/// is what orders the writes; the per-chunk path is a dictionary lookup in the session delegate,
/// a `memcpy` into the partial file's buffer and a progress count.
final class RangedTransfer: SessionTaskHandler, @unchecked Sendable {
    // Safe: `sink` is only touched on the session's serial delegate queue (all
    // `SessionTaskHandler` methods); `control` is guarded by its lock; the rest is immutable.

    /// How a request ended.
    struct Result: Sendable {
        var end: Download.StateMachine.AttemptEnd
        /// The record as it was saved at the end of the request.
        var record: ResumeRecord
    }

    struct Setup: Sendable {
        var attempt: Int
        var plan: AttemptPlan
        /// Whether to publish `resumed(at:)` when the response continues the partial file (not
        /// for each range of a file that comes in several).
        var announcesResume: Bool
        var location: PartialLocation
        var record: ResumeRecord
        var writeBufferCapacity: Int
        var diskThrottle: DiskThrottle?
    }

    private struct Control {
        var task: URLSessionTask?
        var isStopRequested = false
    }

    /// The state of the response being written.
    private struct Sink {
        var record: ResumeRecord
        var file: PartialFile?
        var body: ResponseDecision.BodyPlan?
        /// Set when this transfer decided how the request ends (a rejected response, a failed
        /// write); later body bytes are dropped.
        var decidedEnd: Download.StateMachine.AttemptEnd?
    }

    let setup: Setup
    private let session: TransferSession
    private let progress: ProgressReporter
    private let publish: @Sendable (DownloadEvent) -> Void
    private let onEnd: @Sendable (Result) -> Void
    private let control = Locked(Control())
    private var sink: Sink

    init(
        _ setup: Setup, session: TransferSession, progress: ProgressReporter,
        publish: @escaping @Sendable (DownloadEvent) -> Void, onEnd: @escaping @Sendable (Result) -> Void
    ) {
        self.setup = setup
        self.session = session
        self.progress = progress
        self.publish = publish
        self.onEnd = onEnd
        self.sink = Sink(record: setup.record)
    }

    /// Called on the control queue once the task exists; returns whether it must be cancelled
    /// at once (a stop came before the task did).
    func attach(_ task: URLSessionTask) -> Bool {
        control.withLock { control in
            control.task = task
            return control.isStopRequested
        }
    }

    /// Asks the task to stop (pause or cancel). The request then ends as `.cancelled`, or
    /// otherwise if it ended before the cancellation took effect.
    func stop() {
        let task = control.withLock { control in
            control.isStopRequested = true
            return control.task
        }
        if let task {
            session.cancel(task)
        }
    }

    // MARK: - Delegate queue

    func didReceive(_ response: URLResponse) {
        guard sink.decidedEnd == nil else { return }
        guard sink.file == nil else {
            return reject(.failed(.unexpectedResponse("a second response to one request")))
        }
        guard let response = response as? HTTPURLResponse else {
            return reject(.failed(.unexpectedResponse("the response is not HTTP")))
        }
        let head = ResponseHead(response)
        switch ResponseDecision.decide(head, for: setup.plan) {
        case .write(let body):
            accept(body, head: head)
        case .alreadyComplete(let length):
            sink.record.expectedLength = length
            if length == 0 {
                // An empty file: there is no range to ask for, and nothing to write.
                do {
                    try PartialFile(url: setup.location.partialURL, keepingFirst: 0, bufferCapacity: 0, throttle: nil)
                        .close()
                } catch {
                    return reject(.failed(error))
                }
            }
            reject(.finished)
        case .restart(let reason):
            reject(.restart(reason: reason))
        case .fail(let error):
            reject(.failed(error))
        }
    }

    func didReceive(_ data: Data) {
        guard sink.decidedEnd == nil, let file = sink.file else { return }
        var count = data.count
        if let end = sink.body?.end, file.length + Int64(count) > end {
            count = Int(end - file.length)
            sink.decidedEnd = .failed(
                .unexpectedResponse("the body goes on past byte \(end - 1), where it was announced to end"))
        }
        let failure = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> DownloadError? in
            do throws(DownloadError) {
                try file.append(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            sink.decidedEnd = .failed(failure)
        }
        progress.add(count)
        if sink.decidedEnd != nil {
            stopTask()
        }
    }

    func didComplete(with error: (any Error)?) {
        var end = sink.decidedEnd ?? endOfRequest(error)
        if let file = sink.file {
            do {
                try file.flush()
            } catch {
                if end == .finished { end = .failed(error) }
            }
            file.close()
            sink.record.durableLength = file.writtenLength
            if case .finished = end, sink.record.expectedLength == nil {
                sink.record.expectedLength = file.writtenLength
            }
        }
        do {
            try sink.record.save(to: setup.location.recordURL)
        } catch {
            // Without its record the partial cannot be resumed; a complete file needs none.
            if end != .finished { end = .failed(error) }
        }
        sink.file = nil
        onEnd(Result(end: end, record: sink.record))
    }

    // MARK: - Private

    private func accept(_ body: ResponseDecision.BodyPlan, head: ResponseHead) {
        let kept = body.discardsPartial ? 0 : body.start
        do {
            sink.file = try PartialFile(
                url: setup.location.partialURL, keepingFirst: kept,
                bufferCapacity: setup.writeBufferCapacity, throttle: setup.diskThrottle)
        } catch {
            return reject(.failed(error))
        }
        sink.body = body
        var record = sink.record
        record.validator = head.validator
        record.expectedLength = body.totalLength
        record.durableLength = kept
        record.isResumable = body.isResumable
        record.suggestedFileName = FileName.suggested(contentDisposition: head.contentDisposition, url: head.url)
        sink.record = record
        do {
            try record.save(to: setup.location.recordURL)
        } catch {
            return reject(.failed(error))
        }
        progress.begin(bytesReceived: kept, expectedBytes: body.totalLength)
        if body.discardsPartial, setup.plan.offset > 0 {
            publish(.restarted)
        } else if kept > 0, setup.announcesResume {
            publish(.resumed(at: kept))
        }
    }

    private func reject(_ end: Download.StateMachine.AttemptEnd) {
        sink.decidedEnd = end
        stopTask()
    }

    /// Cancels the task from the control queue (never from here: it would deadlock).
    private func stopTask() {
        let task = control.withLock { $0.task }
        if let task {
            session.cancel(task)
        }
    }

    private func endOfRequest(_ error: (any Error)?) -> Download.StateMachine.AttemptEnd {
        if let error {
            // The initialiser is failable on Linux only; an optional-typed constant suits both.
            let bridged: URLError.Code? = URLError.Code(rawValue: (error as NSError).code)
            let code = (error as? URLError)?.code ?? bridged ?? .unknown
            if code == .cancelled, control.withLock({ $0.isStopRequested }) {
                return .cancelled
            }
            return .failed(.network(code, reason: (error as NSError).localizedDescription))
        }
        guard let file = sink.file, let body = sink.body else {
            return .failed(.unexpectedResponse("the request ended without a response"))
        }
        if let end = body.end, file.length < end {
            return .failed(
                .unexpectedResponse("the body ended after \(file.length - body.start) of \(end - body.start) bytes"))
        }
        let progressed = file.length > body.start
        if let total = body.totalLength {
            if file.length < total {
                // The range asked for (or a shorter one) is here: the next request continues.
                return .incomplete(progressed: progressed)
            }
        } else if let asked = setup.plan.end, body.end == asked {
            // A whole range of a file of unknown length: there may be more.
            return .incomplete(progressed: progressed)
        }
        return .finished
    }
}
