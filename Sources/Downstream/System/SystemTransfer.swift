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
///
/// Its state is a ``StateMachine``, which it drives under its lock; it cancels the task and tells
/// the download after the lock is released.
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
        /// How the partial file is marked for the system (backups, data protection).
        var marker = FileMarker()
        /// The ranged request of a task that continues the partial file; nil for a task that
        /// asks for the whole file (or continues from Apple's resume data).
        var handoff: SystemHandoff?
    }

    let target: Target
    private let announcesResume: Bool
    private let session: any SystemSession
    private let backgroundEvents: BackgroundEvents?
    private let machine: Locked<StateMachine<any SystemTask>>

    /// A transfer for a task its download is about to start, made from Apple's resume data if
    /// `usesResumeData`; or for `task`, a task of an earlier process that runs already (adopted).
    /// `announcesResume`: whether a task resumed from resume data publishes `.resumed(at:)`.
    init(
        target: Target, session: any SystemSession, backgroundEvents: BackgroundEvents?, usesResumeData: Bool,
        announcesResume: Bool, task: (any SystemTask)? = nil
    ) {
        self.target = target
        self.session = session
        self.backgroundEvents = backgroundEvents
        self.announcesResume = announcesResume
        machine = Locked(StateMachine(usesResumeData: usesResumeData, task: task))
    }

    // MARK: - The download's side

    /// The download's attempt number for this transfer, once it took it on.
    var attempt: Int? {
        machine.withLock { $0.attempt }
    }

    func setAttempt(_ attempt: Int) {
        machine.withLock { $0.takeOn(attempt: attempt) }
    }

    /// Whether the file this transfer delivered is part of a batch of background events, whose
    /// completion handler waits for the download to finish with it.
    var countsBackgroundWork: Bool {
        backgroundEvents != nil && machine.withLock { $0.hasKeptFile }
    }

    /// How the task ended, once; nil before it ended or after it was taken.
    func takeEnd() -> TransferEnd? {
        machine.withLock { $0.takeEnd() }
    }

    /// No download takes the transfer on (its download runs another request, or ended): stops the
    /// task, and once it ended, its kept file no longer holds up the batch of background events it
    /// came in. Called again when it ends, if it had not.
    func decline() {
        stop(keepingResumeData: false)
        if takeEnd() != nil, countsBackgroundWork {
            backgroundEvents?.workEnded()
        }
    }

    /// Stops the task. A pause asks the system for resume data (kept in the record); a cancel
    /// does not.
    func stop(keepingResumeData: Bool) {
        // A handoff continues from the bytes on disk: resume data of its range is not kept.
        let keepingResumeData = keepingResumeData && target.handoff == nil
        switch machine.withLock({ $0.stop(keepingResumeData: keepingResumeData) }) {
        case .none:
            break
        case .cancel(let task, let keepingResumeData):
            cancel(task, keepingResumeData: keepingResumeData)
        }
    }

    /// Called on the session's control queue once the task exists.
    func attach(_ task: any SystemTask) {
        switch machine.withLock({ $0.attach(task) }) {
        case .none:
            break
        case .cancel(let task, let keepingResumeData):
            cancel(task, keepingResumeData: keepingResumeData)
        }
    }

    func isTransfer(of task: any SystemTask) -> Bool {
        machine.withLock { $0.task === task }
    }

    // MARK: - Session events (delegate queue)

    func wrote(total: Int64, expected: Int64) {
        machine.withLock { $0.receivedBytes() }
        guard let handoff = target.handoff else {
            return target.progress.update(totalBytes: total, expectedBytes: expected > 0 ? expected : nil)
        }
        // The task's bytes start at the overlap, before the bytes on disk end.
        target.progress.update(
            totalBytes: handoff.offset + max(0, total - handoff.overlap),
            expectedBytes: expected > 0 ? handoff.firstByte + expected : handoff.expectedLength)
    }

    func resumed(at offset: Int64, expected: Int64) {
        machine.withLock { $0.receivedBytes() }
        target.progress.begin(bytesReceived: offset, expectedBytes: expected > 0 ? expected : nil)
        if announcesResume, offset > 0 {
            target.publish(.resumed(at: offset))
        }
    }

    /// Moves the finished file into the partial file's place (the system deletes it after this
    /// returns) and records what it is, or discards an error page.
    func finishedDownloading(to location: URL, response: URLResponse?) {
        if let handoff = target.handoff {
            return finishedHandoff(to: location, response: response, handoff: handoff)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        guard (200...299).contains(status) else {
            POSIXFile.remove(location)
            machine.withLock { $0.fileHandedOver(.failed(.httpStatus(status))) }
            return
        }
        do {
            try FilePlacement.move(location, to: target.partialURL)
            target.marker.markOwn(target.partialURL.path)
            let length = POSIXFile.length(of: target.partialURL) ?? 0
            let head = (response as? HTTPURLResponse).map { ResponseHead(ServerResponse($0)) }
            try target.recordFile.update { record in
                var resume = ResumeRecord(url: record.request.url)
                resume.validator = head?.validator ?? Validator()
                resume.expectedLength = length
                resume.durableLength = length
                resume.suggestedFileName = FileName.suggested(
                    contentDisposition: head?.contentDisposition, url: response?.url ?? record.request.url)
                // The system wrote the file: its digest is computed from the disk before delivery,
                // and checked against the server's when the download checks those.
                resume.response = (response as? HTTPURLResponse).map(ServerResponse.init)
                resume.serverDigest = head?.serverDigests.first
                record.resume = resume
                record.systemResumeData = nil
            }
            fileKept()
        } catch {
            POSIXFile.remove(location)
            fileHandedOver(.failed(error))
        }
    }

    /// The system's file is the partial file now: the batch of background events waits for its
    /// download to deliver it.
    func fileKept() {
        backgroundEvents?.workBegan()
        fileHandedOver(.kept)
    }

    func fileHandedOver(_ outcome: StateMachine<any SystemTask>.FileOutcome) {
        machine.withLock { $0.fileHandedOver(outcome) }
    }

    func completed(error: (any Error)?) {
        if target.handoff == nil,
            let resumeData = (error as NSError?)?.userInfo[URLSessionDownloadTaskResumeDataKey] as? Data
        {
            saveResumeData(resumeData)
        }
        let failure = error.map(TransportFailure.init)
        let stoppedBySystem = Self.systemCancellationReason(of: error)
        switch machine.withLock({ $0.completed(error: failure, stoppedBySystem: stoppedBySystem) }) {
        case .none:
            break
        case .reportEnd:
            target.notify(self)
        }
    }

    // MARK: - Private

    private func cancel(_ task: any SystemTask, keepingResumeData: Bool) {
        session.cancel(task, producingResumeData: keepingResumeData) { [self] data in
            if let data {
                saveResumeData(data)
            }
            switch machine.withLock({ $0.cancelAnswered() }) {
            case .none:
                break
            case .reportEnd:
                target.notify(self)
            }
        }
    }

    private func saveResumeData(_ data: Data) {
        try? target.recordFile.update { $0.systemResumeData = data }
    }

    /// Why the system cancelled a task on its own, when its error says so (Apple's
    /// `NSURLErrorBackgroundTaskCancelledReasonKey`): the user force-quit the app, background
    /// work is off for it, or the system lacked resources.
    static func systemCancellationReason(of error: (any Error)?) -> String? {
        guard let error = error as NSError?, error.code == URLError.Code.cancelled.rawValue,
            let reason = (error.userInfo[URLErrorBackgroundTaskCancelledReasonKey] as? NSNumber)?.intValue
                ?? error.userInfo[URLErrorBackgroundTaskCancelledReasonKey] as? Int
        else { return nil }
        switch reason {
        case 0: return "the user force-quit the app"
        case 1: return "background app refresh is off for the app"
        case 2: return "the system lacked the resources to go on"
        default: return "the system cancelled the background task (reason \(reason))"
        }
    }
}

/// The key of the reason a background task was cancelled by the system in its error
/// (`NSURLErrorBackgroundTaskCancelledReasonKey`): 0 the user force-quit the app
/// (`NSURLErrorCancelledReasonUserForceQuitApplication`), 1 background updates are disabled, 2
/// insufficient system resources.
package let URLErrorBackgroundTaskCancelledReasonKey = "NSURLErrorBackgroundTaskCancelledReasonKey"

/// The key of Apple's resume data in a download task's error (`NSURLSessionDownloadTaskResumeData`).
package let URLSessionDownloadTaskResumeDataKey = "NSURLSessionDownloadTaskResumeData"
