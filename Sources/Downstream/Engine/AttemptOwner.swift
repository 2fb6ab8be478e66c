/// A download, as its engines know it: what its attempts act on, and how to hand it a request it
/// did not start.
///
/// The end of an attempt the download started reaches the closure it gave
/// ``DownloadEngines/run(_:of:onEnd:)``. A request of an earlier process found running (a system
/// task, after a relaunch) comes through here instead: the system-task engine adopts it on the
/// owner's behalf (`SystemEngine+Adoption.swift`, which makes every owner the
/// ``SystemTaskOwner`` its router knows), and the owner sees only a ``RunningAttempt`` and
/// ``AttemptEnd``s, as for its own attempts.
protocol AttemptOwner: Actor, SystemTaskOwner {
    /// What its attempts act on, and whom they tell; nil for a request that cannot be downloaded
    /// (it has no record).
    nonisolated func attemptTarget() -> AttemptTarget?

    /// Takes on `running`, a request this process did not start, as its next attempt: returns the
    /// attempt's number, or nil when it runs another request or ended (the request is then not
    /// wanted).
    func adopt(_ running: RunningAttempt) -> Int?

    /// Attempt `attempt` ended, as its engine reports.
    func attemptEnded(_ attempt: Int, _ attemptEnd: AttemptEnd)
}
