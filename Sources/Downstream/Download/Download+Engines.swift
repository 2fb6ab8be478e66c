import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request of a download in flight, whichever engine runs it.
protocol AttemptTransfer: AnyObject, Sendable {
    /// The download's number for the request.
    var attemptNumber: Int? { get }
    /// Stops the request; `keepingResumeData` asks the system for resume data when it can give
    /// some.
    func stop(keepingResumeData: Bool)
}

extension RangedTransfer: AttemptTransfer {
    var attemptNumber: Int? { setup.attempt }

    func stop(keepingResumeData: Bool) {
        stop()
    }
}

extension SegmentedTransfer: AttemptTransfer {}

extension SystemTransfer: AttemptTransfer {
    var attemptNumber: Int? { attempt }
}

/// The router of the system session knows a download as the owner of the tasks labelled with its
/// identifier.
extension Download: SystemTaskOwner {}

extension Download {
    /// What runs a download's requests: the ranged engine's session, and the system-task engine
    /// when the manager has a (background) system session.
    struct Engines: Sendable {
        /// The transport of the ranged engine.
        var ranged: any Transport
        var system: SystemEngine?

        /// Waits until the system session's tasks of an earlier process have been adopted, so
        /// that a download never starts a second task beside its first.
        func waitUntilReady() async {
            if let system, !system.ready.isOpen {
                await system.ready.wait()
            }
        }
    }

    /// The system-task engine of a manager.
    struct SystemEngine: Sendable {
        /// Routes the session's events; holds the session, which exists once the downloads of
        /// the store are restored (so that no event finds its download missing).
        var router: SystemTaskRouter
        /// Open once the tasks of the session are adopted.
        var ready: Latch
    }

    /// What a system transfer of this download acts on; nil for a request that cannot be
    /// downloaded (it has no record).
    nonisolated var systemTarget: SystemTransfer.Target? {
        guard let recordFile else { return nil }
        return SystemTransfer.Target(
            downloadID: id, partialURL: location.partialURL, recordFile: recordFile, progress: progressReporter,
            publish: { [weak self] in self?.publishEvent($0) },
            notify: { [weak self] transfer in
                Task { [weak self] in await self?.systemTransferChanged(transfer) }
            }, marker: context.settings.transfer.marker)
    }

    /// Whether this attempt goes to the system: when the manager has a system session, unless the
    /// partial file holds bytes (from a ranged request) that the system has no resume data for:
    /// the ranged engine continues from those.
    func usesSystemEngine(for kind: StateMachine.AttemptKind) -> Bool {
        guard let session = engines.system?.router.session, kind != .continuation, let record = recordFile?.record
        else { return false }
        if kind == .restart || (record.systemResumeData != nil && session.supportsResumeData) { return true }
        let bytesOnDisk = record.resume.isResumable ? Self.bytesOnDisk(record.resume, partialPath: location.path) : 0
        return bytesOnDisk == 0
    }

    func startSystemAttempt(_ attempt: Int, _ kind: StateMachine.AttemptKind, on system: SystemEngine) {
        guard let session = system.router.session else { return }
        var urlRequest = request.urlRequest
        var resumeData: Data?
        let target: SystemTransfer.Target
        do throws(DownloadError) {
            if let requestError { throw requestError }
            guard let recordFile, let systemTarget, request.url != nil else {
                throw .invalidRequest("the request has no URL")
            }
            target = systemTarget
            try FilePlacement.prepare(request.destination)
            try FilePlacement.createDirectory(atPath: location.path.parentPath)
            if kind == .restart {
                try recordFile.update { $0.startOver() }
            } else if !session.supportsResumeData, recordFile.record.systemResumeData != nil {
                try recordFile.update { $0.systemResumeData = nil }
            }
            resumeData = recordFile.record.systemResumeData
        } catch {
            handle(machine.attemptEnded(attempt, .failed(error)))
            return
        }
        urlRequest.url = sources.current
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        let options = SystemTaskOptions(
            networkAccess: request.networkAccess,
            earliestBeginDate: resumeData == nil ? request.earliestBeginDate : nil,
            expectedByteCount: request.expectedByteCount)
        let transfer = SystemTransfer(
            target: target, session: session, backgroundEvents: system.router.backgroundEvents,
            usesResumeData: resumeData != nil, announcesResume: kind == .run)
        transfer.setAttempt(attempt)
        self.transfer = transfer
        system.router.bind(transfer)
        session.start(urlRequest, resumeData: resumeData, downloadID: id, options: options, attach: transfer.attach)
    }

    /// A system transfer of this download changed: it ended, or the router adopted a task of an
    /// earlier process. Reads the transfer's state, so late or repeated messages do no harm.
    func systemTransferChanged(_ changed: SystemTransfer) {
        if let current = transfer, current === changed as AnyObject {
            if let end = changed.takeEnd(), let attempt = changed.attempt {
                consume(end, of: changed, attempt: attempt)
            }
            return
        }
        guard changed.attempt == nil else { return }
        // A task of an earlier process, found after a relaunch.
        guard case .adopt(let attempt) = machine.adopt() else {
            // The download runs another request, or ended: the old task is not wanted.
            changed.stop(keepingResumeData: false)
            if changed.takeEnd() != nil, changed.countsBackgroundWork {
                engines.system?.router.backgroundEvents.workEnded()
            }
            return
        }
        changed.setAttempt(attempt)
        transfer = changed
        // Through the machine's transition, as every change: the manager hears the download
        // holds a slot now, and counts it in its limits.
        transitioned {
            publishEvent(.running)
            saveIntent(.active)
        }
        if let end = changed.takeEnd() {
            consume(end, of: changed, attempt: attempt)
        }
    }

    private func consume(_ end: TransferEnd, of transfer: SystemTransfer, attempt: Int) {
        if transfer.countsBackgroundWork {
            holdsBackgroundWork = true
        }
        attemptEnded(attempt, end)
        if holdsBackgroundWork, machine.state != .finalizing, machine.publicState != .completed {
            finishBackgroundWork()
        }
    }

    /// Tells the background events that this download finished with its file.
    func finishBackgroundWork() {
        guard holdsBackgroundWork else { return }
        holdsBackgroundWork = false
        engines.system?.router.backgroundEvents.workEnded()
    }
}
