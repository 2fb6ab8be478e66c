import Foundation

/// The router of the system session knows a download as the owner of the tasks labelled with its
/// identifier.
extension Download: SystemTaskOwner {}

extension Download {
    /// What a system transfer of this download acts on; nil for a request that cannot be
    /// downloaded (it has no record).
    nonisolated var systemTarget: SystemTransfer.Target? {
        guard let recordFile else { return nil }
        return SystemTransfer.Target(
            downloadID: id, partialURL: location.partialURL, recordFile: recordFile, progress: progressReporter,
            publish: { [weak self] in self?.publishEvent($0) },
            notify: { [weak self] transfer in
                Task { [weak self] in await self?.systemTransferChanged(transfer) }
            }, marker: context.settings.engine.transfer.marker)
    }

    /// A system transfer of this download changed: it ended, or the router adopted a task of an
    /// earlier process. Reads the transfer's state, so late or repeated messages do no harm.
    func systemTransferChanged(_ changed: SystemTransfer) {
        if let run = machine.run, run.runs(changed) {
            if let end = changed.takeEnd(), let attempt = changed.attempt {
                consume(end, of: changed, attempt: attempt)
            }
            return
        }
        guard changed.attempt == nil else { return }
        // A task of an earlier process, found after a relaunch.
        guard case .adopt(let attempt, let timer) = machine.adopt() else {
            // The download runs another request, or ended: the old task is not wanted.
            changed.stop(keepingResumeData: false)
            if changed.takeEnd() != nil, changed.countsBackgroundWork {
                engines.system?.router.backgroundEvents.workEnded()
            }
            return
        }
        timer?.cancel()
        changed.setAttempt(attempt)
        machine.attemptStarted(attempt, RunningAttempt(running: changed))
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
        if holdsBackgroundWork, machine.phase != .finalizing, machine.publicState != .completed {
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
