// The system-task engine's side of every download: the router of the system session knows a
// download as the owner of the tasks labelled with its identifier, and hands it the transfers it
// adopts (tasks of an earlier process, found after a relaunch). They are taken on here, on the
// download's actor, so that the download sees a `RunningAttempt` and `AttemptEnd`s only.
extension AttemptOwner {
    /// What a transfer of an adopted task acts on; nil if the owner can have none (it has no
    /// record).
    nonisolated var systemTarget: SystemTransfer.Target? {
        attemptTarget().map { target in
            // A task of a handoff continues the partial file: its record says which range it asked for.
            SystemEngine.transferTarget(of: target, handoff: target.recordFile.record.handoff) { [weak self] transfer in
                Task { [weak self] in await self?.systemTransferChanged(transfer) }
            }
        }
    }

    /// A transfer the router adopted for the owner changed: it was adopted, or it ended. Reads the
    /// transfer's state, so late or repeated messages do no harm; runs on the owner's actor, so
    /// that a transfer is taken on and its end taken in one turn.
    func systemTransferChanged(_ changed: SystemTransfer) {
        if let attempt = changed.attempt {
            // Taken on already: its end, once it came.
            if let ended = changed.takeEnd() {
                attemptEnded(attempt, AttemptEnd(transferEnd: ended, holdsBackgroundWork: changed.countsBackgroundWork))
            }
            return
        }
        guard let attempt = adopt(RunningAttempt(running: changed)) else {
            changed.decline()
            return
        }
        changed.setAttempt(attempt)
        if let ended = changed.takeEnd() {
            attemptEnded(attempt, AttemptEnd(transferEnd: ended, holdsBackgroundWork: changed.countsBackgroundWork))
        }
    }
}
