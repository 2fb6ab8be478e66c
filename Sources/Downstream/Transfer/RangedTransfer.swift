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

    struct Setup: Sendable {
        var attempt: Int
        /// The URL asked for (before redirects).
        var url: URL
        var plan: AttemptPlan
        /// Whether to publish `resumed(at:)` when the response continues the partial file (not
        /// for each range of a file that comes in several).
        var announcesResume: Bool
        var partialPath: String
        /// Whether the file takes the name the server suggests (a directory destination).
        var namesFile: Bool
        /// What the engine knows of the partial file as the request starts.
        var record: ResumeRecord
        /// Where that knowledge is saved: on each response, at checkpoints and at the end.
        var recordFile: DownloadRecordFile
        var writeBufferCapacity: Int
        var checkpoints: DownloadManager.Configuration.Checkpoints
        /// Whether checkpoints and ends put the bytes on the disk (`fsync`), not only in the file.
        var synchronizesToDisk: Bool
        var diskThrottle: DiskThrottle?
        var downloadID: DownloadID
        var redirects: DownloadManager.Configuration.Redirects
        /// Whether a `401` or `407` is a challenge to hand to the download (an authentication
        /// handler answers it), rather than a failure.
        var answersChallenges: Bool
        /// Challenges answered before this request, in this run of the download.
        var previousChallenges: Int
    }

    private struct Control {
        var task: URLSessionTask?
        var isStopRequested = false
        /// Set once the task is asked to stop, for any reason, or has completed: a redirect is
        /// then never answered. Linux's URLSession stops the process when a redirect's answer
        /// reaches a task that was cancelled or completed meanwhile (HTTPURLProtocol
        /// `didCompleteRedirectCallback`), and a cancelled task does not wait for the answer.
        var isEnding = false
        /// The answer URLSession waits for while a redirect is being decided; taken (so called at
        /// most once) by the decision, or with `nil` just before the task is cancelled.
        var pendingRedirect: (@Sendable (URLRequest?) -> Void)?
        /// A redirect refused by the redirect handler: the redirect response is then delivered
        /// as the response, and fails the request with this.
        var refusedRedirect: DownloadError?
    }

    /// The state of the response being written.
    private struct Sink {
        var record: ResumeRecord
        var file: PartialFile?
        var body: ResponseDecision.BodyPlan?
        /// The overlap the body starts with, while it is being compared: nothing is written or
        /// recorded until it matched.
        var overlap: OverlapCheck?
        /// The response whose body is written, kept until the overlap matched.
        var accepted: (head: ResponseHead, response: ServerResponse)?
        /// The last response head received (a refusal, say), for the end's report.
        var lastResponse: ServerResponse?
        /// Set when this transfer decided how the request ends (a rejected response, a failed
        /// write); later body bytes are dropped.
        var decidedEnd: TransferEnd?
        /// When the next checkpoint is due: at this length of the partial file, or at this time.
        var nextCheckpointLength: Int64 = 0
        var nextCheckpointTime = ContinuousClock.now
        /// Redirects followed by this request.
        var redirects = 0
    }

    let setup: Setup
    private let session: TransferSession
    private let progress: any ProgressSink
    private let publish: @Sendable (DownloadEvent) -> Void
    /// Sees every response head, for event monitors.
    private let observeResponse: (@Sendable (ServerResponse) -> Void)?
    private let onEnd: @Sendable (TransferEnd, ServerResponse?) -> Void
    private let control = Locked(Control())
    private var sink: Sink

    init(
        _ setup: Setup, session: TransferSession, progress: any ProgressSink,
        publish: @escaping @Sendable (DownloadEvent) -> Void,
        observeResponse: (@Sendable (ServerResponse) -> Void)? = nil,
        onEnd: @escaping @Sendable (TransferEnd, ServerResponse?) -> Void
    ) {
        self.setup = setup
        self.session = session
        self.progress = progress
        self.publish = publish
        self.observeResponse = observeResponse
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
        control.withLock { $0.isStopRequested = true }
        stopTask()
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
        let serverResponse = ServerResponse(response)
        sink.lastResponse = serverResponse
        observeResponse?(serverResponse)
        if let refusal = control.withLock({ $0.refusedRedirect }) {
            return reject(.failed(refusal))
        }
        if setup.answersChallenges, [401, 407].contains(response.statusCode) {
            return reject(
                .challenged(
                    AuthenticationChallenge(
                        downloadID: setup.downloadID, response: serverResponse,
                        previousFailureCount: setup.previousChallenges)))
        }
        let head = ResponseHead(response)
        switch ResponseDecision.decide(head, for: setup.plan) {
        case .write(let body):
            accept(body, head: head, response: serverResponse)
        case .alreadyComplete(let length):
            sink.record.expectedLength = length
            sink.record.durableLength = length
            if length == 0 {
                // An empty file: there is no range to ask for, and nothing to write.
                do {
                    try PartialFile(path: setup.partialPath, keepingFirst: 0, bufferCapacity: 0, throttle: nil)
                        .close()
                } catch {
                    return reject(.failed(error))
                }
            }
            reject(.finished)
        case .restart(let reason):
            reject(.restart(reason: reason))
        case .existingCopyIsCurrent(let path):
            reject(.destinationIsCurrent(URL(fileURLWithPath: path, isDirectory: false)))
        case .fail(let error):
            reject(.failed(error))
        }
    }

    func didReceive(_ data: Data) {
        guard sink.decidedEnd == nil, let file = sink.file else { return }
        data.withUnsafeBytes { receive($0, into: file) }
        if sink.decidedEnd != nil {
            stopTask()
        }
    }

    private func receive(_ received: UnsafeRawBufferPointer, into file: PartialFile) {
        var bytes = received
        if var overlap = sink.overlap {
            guard let repeated = overlap.consume(bytes) else { return overlapDiffers(overlap) }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[repeated...])
            sink.overlap = overlap
            if overlap.isComplete {
                sink.overlap = nil
                commit()
            }
            guard sink.decidedEnd == nil, !bytes.isEmpty else { return }
        }
        var count = bytes.count
        if let end = sink.body?.end, file.length + Int64(count) > end {
            count = Int(end - file.length)
            sink.decidedEnd = .failed(
                .unexpectedResponse("the body goes on past byte \(end - 1), where it was announced to end"))
        }
        let written = UnsafeRawBufferPointer(rebasing: bytes[..<count])
        do throws(DownloadError) {
            try file.append(written)
            sink.record.digest?.update(written)
        } catch {
            sink.decidedEnd = .failed(error)
        }
        progress.add(count)
        if sink.decidedEnd == nil,
            file.length >= sink.nextCheckpointLength || ContinuousClock.now >= sink.nextCheckpointTime
        {
            checkpoint(file)
        }
    }

    /// The body's first bytes are not the partial file's: the server's file is another than the
    /// one the partial holds. Nothing was written; the partial is not to be continued.
    private func overlapDiffers(_ overlap: OverlapCheck) {
        let resumePoint = setup.plan.offset
        let reason =
            "the \(overlap.expected.count) bytes before byte \(resumePoint) are not those on disk "
            + "(no validator guards the range)"
        reject(setup.plan.onServerFileChange == .fail ? .failed(.serverFileChanged(reason)) : .restart(reason: reason))
    }

    /// Checks a redirect (and asks the redirect handler, if any) before it is followed;
    /// `completion` gets the request to follow, or nil to take the redirect as the response.
    func willRedirect(
        _ response: HTTPURLResponse, to proposed: URLRequest,
        completion: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A task asked to stop is not answered: the answer could reach it after the cancel.
        let isAnswerable = control.withLock { control in
            guard !control.isEnding else { return false }
            control.pendingRedirect = completion
            return true
        }
        guard isAnswerable, sink.decidedEnd == nil else { return }
        let previousCount = sink.redirects
        sink.redirects += 1
        let checked = RedirectPolicy.check(
            proposed, from: response.url, original: setup.url, previousCount: previousCount,
            settings: setup.redirects)
        let request: URLRequest
        switch checked {
        case .failure(let refusal):
            // Answered before the cancel that `reject` asks for.
            answerRedirect(nil)
            return reject(.failed(refusal))
        case .success(let checkedRequest):
            request = checkedRequest
        }
        guard let handler = setup.redirects.handler else { return answerRedirect(request) }
        let redirect = Redirect(
            downloadID: setup.downloadID, originalURL: setup.url, response: ServerResponse(response),
            request: request, previousCount: previousCount)
        Task { [control, setup] in
            let decision = await handler(redirect)
            switch decision.code {
            case .follow(nil):
                self.answerRedirect(request)
            case .follow(var changed?):
                // The range and its guards stay the engine's.
                for name in ["Range", "If-Range", "Accept-Encoding"] {
                    changed.setValue(request.value(forHTTPHeaderField: name), forHTTPHeaderField: name)
                }
                if case .failure(let refusal) = RedirectPolicy.check(
                    changed, from: response.url, original: changed.url ?? setup.url,
                    previousCount: previousCount, settings: setup.redirects)
                {
                    control.withLock { $0.refusedRedirect = refusal }
                    return self.answerRedirect(nil)
                }
                self.answerRedirect(changed)
            case .refuse(let reason):
                control.withLock { $0.refusedRedirect = .redirectRefused(reason) }
                self.answerRedirect(nil)
            }
        }
    }

    func didComplete(with error: (any Error)?) {
        // A redirect still being decided (a timeout ended the task) is never answered.
        control.withLock { control in
            control.isEnding = true
            control.pendingRedirect = nil
        }
        var end = sink.decidedEnd ?? endOfRequest(error)
        if let file = sink.file {
            do {
                try setup.synchronizesToDisk ? file.synchronize() : file.flush()
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
            try saveRecord()
        } catch {
            // Without its record the partial cannot be resumed; a complete file needs none.
            if end != .finished { end = .failed(error) }
        }
        sink.file = nil
        onEnd(end, sink.lastResponse)
    }

    // MARK: - Private

    private func accept(_ body: ResponseDecision.BodyPlan, head: ResponseHead, response: ServerResponse) {
        let kept = body.keptLength
        // No bigger than the body, when its end is known: small files are many.
        let bodyLength = (body.end ?? body.totalLength).map { max(0, $0 - kept) }
        let capacity = bodyLength.map { Int(min(Int64(setup.writeBufferCapacity), $0)) } ?? setup.writeBufferCapacity
        if let shortage = spaceShortage(for: body, keeping: kept) {
            return reject(.failed(shortage))
        }
        do {
            if body.verifiedPrefix > 0 {
                sink.overlap = OverlapCheck(
                    expected: try POSIXFile.bytes(atPath: setup.partialPath, in: body.start..<kept))
            }
            sink.file = try PartialFile(
                path: setup.partialPath, keepingFirst: kept, bufferCapacity: capacity, throttle: setup.diskThrottle)
        } catch {
            return reject(.failed(error))
        }
        sink.body = body
        sink.accepted = (head, response)
        if sink.overlap == nil {
            commit()
        }
    }

    /// The body's bytes are to be written (the overlap, if any, matched): records which file the
    /// partial holds now, and says so.
    private func commit() {
        guard let body = sink.body, let (head, response) = sink.accepted else { return }
        let kept = body.keptLength
        sink.record.url = setup.url
        sink.record.validator = head.validator
        sink.record.expectedLength = body.totalLength
        sink.record.durableLength = kept
        sink.record.isResumable = body.isResumable
        sink.record.response = response
        if let digest = sink.record.digest, digest.length != kept {
            // The digest covers what the file keeps: nothing, or the bytes this range continues.
            sink.record.digest = kept == 0 ? RunningDigest(digest.algorithm) : nil
        }
        if setup.namesFile {
            sink.record.suggestedFileName = FileName.suggested(
                contentDisposition: head.contentDisposition, url: head.url)
        }
        scheduleCheckpoint(after: kept)
        if storedRecordMisleads(after: body) {
            do {
                try saveRecord()
            } catch {
                return reject(.failed(error))
            }
        }
        progress.begin(bytesReceived: kept, expectedBytes: body.totalLength)
        if body.discardsPartial, setup.plan.offset > 0 {
            publish(.restarted)
        } else if kept > 0, setup.announcesResume {
            publish(.resumed(at: kept))
        }
    }

    /// Why the rest of the file cannot fit on the partial file's disk, when its length is known
    /// and the disk says how much room it has; checked before the first byte is written, so a
    /// file that cannot fit does not fill the disk first. The partial file stays as it is.
    private func spaceShortage(for body: ResponseDecision.BodyPlan, keeping kept: Int64) -> DownloadError? {
        guard let total = body.totalLength,
            var available = POSIXFile.availableBytes(atPath: setup.partialPath.parentPath)
        else { return nil }
        let existing = POSIXFile.length(atPath: setup.partialPath) ?? 0
        // Bytes past what is kept are given back when the file is cut to it.
        available += max(0, existing - kept)
        let needed = total - kept
        guard needed > available else { return nil }
        return .insufficientSpace(
            path: setup.partialPath,
            reason: "the file needs \(needed) more bytes and only \(available) are free")
    }

    /// Whether the stored record, as it is, would let a relaunch misread the partial file once
    /// this response's bytes are in it: it says the file can be continued, and this response
    /// replaces the file or describes it differently. Then the new record is written before the
    /// first byte; otherwise at the first checkpoint (a record that says the file cannot be
    /// continued makes a relaunch start from the first byte, which is always safe).
    private func storedRecordMisleads(after body: ResponseDecision.BodyPlan) -> Bool {
        let stored = setup.recordFile.record.resume
        guard stored.isResumable else { return false }
        return body.discardsPartial || !body.isResumable || stored.url != sink.record.url
            || stored.validator != sink.record.validator
            || stored.expectedLength != sink.record.expectedLength
            || stored.suggestedFileName != sink.record.suggestedFileName
    }

    /// Hands the buffered bytes to the file system and saves how many are there, so that a
    /// process killed now resumes from them.
    private func checkpoint(_ file: PartialFile) {
        do {
            try setup.synchronizesToDisk ? file.synchronize() : file.flush()
            sink.record.durableLength = file.writtenLength
            try saveRecord()
            scheduleCheckpoint(after: file.writtenLength)
        } catch {
            reject(.failed(error))
        }
    }

    private func scheduleCheckpoint(after length: Int64) {
        sink.nextCheckpointLength = length + max(setup.checkpoints.bytes, 1)
        sink.nextCheckpointTime = ContinuousClock.now + setup.checkpoints.interval
    }

    private func saveRecord() throws(DownloadError) {
        let record = sink.record
        try setup.recordFile.update { $0.resume = record }
    }

    private func reject(_ end: TransferEnd) {
        if case .failed(let error) = end, error.kind == .serverFileChanged {
            // The partial file holds another version of the file: kept (the request said to fail
            // rather than discard it) but never continued; resuming starts over.
            sink.record = .startingOver(url: setup.url)
        }
        sink.decidedEnd = end
        stopTask()
    }

    /// Cancels the task from the control queue (never from here: it would deadlock), answering
    /// a redirect being decided first, so that its answer reaches URLSession before the cancel.
    private func stopTask() {
        let (task, pendingRedirect) = control.withLock { control in
            control.isEnding = true
            defer { control.pendingRedirect = nil }
            return (control.task, control.pendingRedirect)
        }
        pendingRedirect?(nil)
        if let task {
            session.cancel(task)
        }
    }

    /// Gives URLSession the answer to the redirect being decided, unless the task was asked to
    /// stop meanwhile (which answered it already).
    private func answerRedirect(_ request: URLRequest?) {
        let pending = control.withLock { control in
            defer { control.pendingRedirect = nil }
            return control.pendingRedirect
        }
        pending?(request)
    }

    private func endOfRequest(_ error: (any Error)?) -> TransferEnd {
        if let error {
            let code = URLError.Code(of: error)
            if code == .cancelled, control.withLock({ $0.isStopRequested }) {
                return .cancelled
            }
            if code == .unsupportedURL {
                // Every URL sent is HTTP(S): what was not understood is the answer. Typically the
                // rest of a previous response longer than its Content-Length, read on the same
                // connection as this one's status line ("Received HTTP/0.9").
                return .failed(
                    .unexpectedResponse("the answer is not HTTP (\((error as NSError).localizedDescription))"))
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
        let progressed = file.length > body.keptLength
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
