import Foundation

/// The engines hand a download the requests of an earlier process they find running (a system
/// task, after a relaunch) as attempts it did not start.
extension Download: AttemptOwner {
    /// Takes on `running`, a request this process did not start, as the next attempt: nil when
    /// the download runs another request, or ended.
    func adopt(_ running: RunningAttempt) -> Int? {
        guard case .adopt(let attempt, let timer) = machine.adopt() else { return nil }
        timer?.cancel()
        machine.attemptStarted(attempt, running)
        // Through the machine's transition, as every change: the manager hears the download
        // holds a slot now, and counts it in its limits.
        transitioned {
            publishEvent(.running)
            saveIntent(.active)
        }
        return attempt
    }

    /// Tells the engines that this download finished with the file of an attempt whose end held
    /// background work (``AttemptEnd/holdsBackgroundWork``).
    func finishBackgroundWork() {
        guard holdsBackgroundWork else { return }
        holdsBackgroundWork = false
        engines.backgroundWorkEnded()
    }
}
