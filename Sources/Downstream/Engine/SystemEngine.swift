import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The system-task engine of a manager: download tasks of its system (background) session, which
/// the system runs and may finish while the app is not running (``SystemTransfer``).
///
/// The end of a task it started reaches `onEnd` as every engine's does. A task of an earlier
/// process, found after a relaunch, is adopted on its download's behalf (see
/// `SystemEngine+Adoption.swift`): the download sees a ``RunningAttempt`` and an ``AttemptEnd``
/// either way.
struct SystemEngine: AttemptEngine {
    /// Routes the session's events; holds the session, which exists once the downloads of
    /// the store are restored (so that no event finds its download missing).
    var router: SystemTaskRouter
    /// Open once the tasks of the session are adopted.
    var ready: Latch

    func run(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        guard let session = router.session else {
            return onEnd(.notSent(.invalidRequest("the manager's system session is closed")))
        }
        let request = target.request
        let recordFile = target.recordFile
        var resumeData: Data?
        var handoff: Handoff?
        do throws(DownloadError) {
            guard request.url != nil else { throw .invalidRequest("the request has no URL") }
            try FilePlacement.prepare(request.destination)
            try FilePlacement.createDirectory(atPath: target.partialPath.parentPath)
            if attempt.kind == .restart {
                try recordFile.update { $0.startOver() }
            } else if !session.supportsResumeData, recordFile.record.systemResumeData != nil {
                try recordFile.update { $0.systemResumeData = nil }
            }
            resumeData = recordFile.record.systemResumeData
            handoff = try Self.handoff(for: attempt, of: target, resumeData: resumeData)
            if handoff?.record != recordFile.record.handoff {
                try recordFile.update { $0.handoff = handoff?.record }
            }
        } catch {
            return onEnd(.notSent(error))
        }
        var urlRequest = request.urlRequest
        urlRequest.url = attempt.url
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in attempt.adaptedHeaders {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if let handoff {
            urlRequest.setValue(handoff.range, forHTTPHeaderField: "Range")
            urlRequest.setValue(handoff.ifRange, forHTTPHeaderField: "If-Range")
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        let firstByte = handoff?.record.firstByte ?? 0
        let options = SystemTaskOptions(
            networkAccess: target.settings.networkAccess.effective(for: request.networkAccess),
            earliestBeginDate: resumeData == nil && handoff == nil ? request.earliestBeginDate : nil,
            expectedByteCount: request.expectedByteCount.map { max(0, $0 - firstByte) })
        let transferTarget = Self.transferTarget(of: target, handoff: handoff?.record) { transfer in
            // Late or repeated messages find the end taken.
            if let ended = transfer.takeEnd() {
                onEnd(AttemptEnd(transferEnd: ended, holdsBackgroundWork: transfer.countsBackgroundWork))
            }
        }
        let transfer = SystemTransfer(
            target: transferTarget, session: session, backgroundEvents: router.backgroundEvents,
            usesResumeData: resumeData != nil, announcesResume: attempt.kind == .first)
        transfer.setAttempt(attempt.number)
        let launched = running.launch(transfer) {
            router.bind(transfer)
            session.start(
                urlRequest, resumeData: resumeData, downloadID: target.downloadID, options: options,
                attach: transfer.attach)
        }
        if !launched { onEnd(AttemptEnd(transferEnd: .cancelled)) }
    }
}

extension SystemEngine {
    /// What a system transfer of `target`'s download acts on; `notify` hears that the transfer
    /// changed (it ended, or was adopted).
    static func transferTarget(
        of target: AttemptTarget, handoff: SystemHandoff? = nil, notify: @escaping @Sendable (SystemTransfer) -> Void
    ) -> SystemTransfer.Target {
        SystemTransfer.Target(
            downloadID: target.downloadID, partialURL: target.location.partialURL, recordFile: target.recordFile,
            progress: target.progress, publish: target.publish, notify: notify,
            marker: target.settings.transfer.marker, handoff: handoff)
    }
}
