import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One system download task of a download: the system writes the file; this follows the task,
/// moves the finished file into the download's partial file before the system deletes it, keeps
/// the record (validators, Apple's resume data), and tells the download when the task ended.
///
/// Its events come from ``SystemTaskRouter`` on the session's delegate queue. A transfer is made
/// by its download when it starts a task, or by the router for a task found after a relaunch
/// (adopted). Its download learns of changes through ``Target/notify``: messages may arrive late
/// or twice, so the download reads the transfer's state (``takeEnd()``) rather than the message.
final class SystemTransfer: Sendable {
    /// What the transfer acts on: its download's files, progress and events.
    struct Target: Sendable {
        var downloadID: DownloadID
        var partialURL: URL
        var recordFile: DownloadRecordFile
        var progress: any ProgressSink
        var publish: @Sendable (DownloadEvent) -> Void
        /// Tells the download that the transfer changed (adopted, or ended).
        var notify: @Sendable (SystemTransfer) -> Void
    }

    private struct State {
        var task: (any SystemTask)?
        var attempt: Int?
        var isStopRequested = false
        var keepsResumeData = false
        var isAwaitingResumeData = false
        /// Set when the transfer decided how the request ends, before the task completed.
        var decidedEnd: TransferEnd?
        /// How the task ended; reported once the resume data (if asked for) arrived too.
        var completion: TransferEnd?
        var isEndTaken = false
        var hasReceivedBytes = false
        var countsBackgroundWork = false
    }

    let target: Target
    /// Whether the task was made from Apple's resume data.
    let usesResumeData: Bool
    private let announcesResume: Bool
    private let session: any SystemSession
    private let backgroundEvents: BackgroundEvents?
    private let state = Locked(State())

    init(
        target: Target, session: any SystemSession, backgroundEvents: BackgroundEvents?, usesResumeData: Bool,
        announcesResume: Bool, task: (any SystemTask)? = nil
    ) {
        self.target = target
        self.session = session
        self.backgroundEvents = backgroundEvents
        self.usesResumeData = usesResumeData
        self.announcesResume = announcesResume
        state.withLock { $0.task = task }
    }

    // MARK: - The download's side

    /// The download's attempt number for this transfer, once it took it on.
    var attempt: Int? {
        state.withLock { $0.attempt }
    }

    func setAttempt(_ attempt: Int) {
        state.withLock { $0.attempt = attempt }
    }

    /// Whether the file this transfer delivered is part of a batch of background events, whose
    /// completion handler waits for the download to finish with it.
    var countsBackgroundWork: Bool {
        state.withLock { $0.countsBackgroundWork }
    }

    /// How the task ended, once; nil before it ended or after it was taken.
    func takeEnd() -> TransferEnd? {
        state.withLock { state in
            guard !state.isEndTaken, !state.isAwaitingResumeData, let completion = state.completion else { return nil }
            state.isEndTaken = true
            return completion
        }
    }

    /// Stops the task. A pause asks the system for resume data (kept in the record); a cancel
    /// does not.
    func stop(keepingResumeData: Bool) {
        let task = state.withLock { state -> (any SystemTask)? in
            guard !state.isStopRequested, state.completion == nil else { return nil }
            state.isStopRequested = true
            state.keepsResumeData = keepingResumeData
            state.isAwaitingResumeData = keepingResumeData && state.task != nil
            return state.task
        }
        if let task {
            cancel(task, keepingResumeData: keepingResumeData)
        }
    }

    /// Called on the session's control queue once the task exists.
    func attach(_ task: any SystemTask) {
        let stop = state.withLock { state -> Bool? in
            state.task = task
            guard state.isStopRequested else { return nil }
            state.isAwaitingResumeData = state.keepsResumeData
            return state.keepsResumeData
        }
        if let stop {
            cancel(task, keepingResumeData: stop)
        }
    }

    func isTransfer(of task: any SystemTask) -> Bool {
        state.withLock { $0.task === task }
    }

    // MARK: - Session events (delegate queue)

    func wrote(total: Int64, expected: Int64) {
        state.withLock { $0.hasReceivedBytes = true }
        target.progress.update(totalBytes: total, expectedBytes: expected > 0 ? expected : nil)
    }

    func resumed(at offset: Int64, expected: Int64) {
        state.withLock { $0.hasReceivedBytes = true }
        target.progress.begin(bytesReceived: offset, expectedBytes: expected > 0 ? expected : nil)
        if announcesResume, offset > 0 {
            target.publish(.resumed(at: offset))
        }
    }

    /// Moves the finished file into the partial file's place (the system deletes it after this
    /// returns) and records what it is, or discards an error page.
    func finishedDownloading(to location: URL, response: URLResponse?) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        guard (200...299).contains(status) else {
            POSIXFile.remove(location)
            state.withLock { $0.decidedEnd = .failed(.httpStatus(status)) }
            return
        }
        do {
            try FilePlacement.move(location, to: target.partialURL)
            let length = POSIXFile.length(of: target.partialURL) ?? 0
            let head = (response as? HTTPURLResponse).map { ResponseHead(ServerResponse($0)) }
            try target.recordFile.update { record in
                var resume = ResumeRecord(url: record.request.url)
                resume.validator = head?.validator ?? Validator()
                resume.expectedLength = length
                resume.durableLength = length
                resume.suggestedFileName = FileName.suggested(
                    contentDisposition: head?.contentDisposition, url: response?.url ?? record.request.url)
                // The system wrote the file: its digest is computed from the disk before delivery.
                resume.response = (response as? HTTPURLResponse).map(ServerResponse.init)
                record.resume = resume
                record.systemResumeData = nil
            }
            backgroundEvents?.workBegan()
            state.withLock { state in
                state.decidedEnd = .finished
                state.countsBackgroundWork = backgroundEvents != nil
            }
        } catch {
            POSIXFile.remove(location)
            state.withLock { $0.decidedEnd = .failed(error) }
        }
    }

    func completed(error: (any Error)?) {
        if let resumeData = (error as NSError?)?.userInfo[URLSessionDownloadTaskResumeDataKey] as? Data {
            saveResumeData(resumeData)
        }
        let report = state.withLock { state -> Bool in
            state.completion = completion(of: state, error: error)
            return !state.isAwaitingResumeData
        }
        if report {
            target.notify(self)
        }
    }

    // MARK: - Private

    private func completion(of state: State, error: (any Error)?) -> TransferEnd {
        if state.decidedEnd == .finished {
            return .finished
        }
        guard let error else {
            return state.decidedEnd ?? .failed(.unexpectedResponse("the system finished the task without a file"))
        }
        if let decidedEnd = state.decidedEnd {
            return decidedEnd
        }
        let nsError = error as NSError
        let code = URLError.Code(of: error)
        if code == .cancelled, state.isStopRequested {
            return .cancelled
        }
        if usesResumeData, !state.hasReceivedBytes {
            // The system could not use its resume data: start the file again.
            return .restart(
                reason: "the system could not resume from its resume data (\(nsError.localizedDescription))")
        }
        return .failed(.network(code, reason: nsError.localizedDescription))
    }

    private func cancel(_ task: any SystemTask, keepingResumeData: Bool) {
        session.cancel(task, producingResumeData: keepingResumeData) { [self] data in
            if let data {
                saveResumeData(data)
            }
            let report = state.withLock { state -> Bool in
                let wasAwaiting = state.isAwaitingResumeData
                state.isAwaitingResumeData = false
                return wasAwaiting && state.completion != nil
            }
            if report {
                target.notify(self)
            }
        }
    }

    private func saveResumeData(_ data: Data) {
        try? target.recordFile.update { $0.systemResumeData = data }
    }
}

/// The key of Apple's resume data in a download task's error (`NSURLSessionDownloadTaskResumeData`).
@_spi(Testing) public let URLSessionDownloadTaskResumeDataKey = "NSURLSessionDownloadTaskResumeData"
