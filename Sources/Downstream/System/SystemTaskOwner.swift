/// What the system-task engine knows of a download: the owner of the tasks labelled with its
/// identifier.
///
/// ``SystemTaskRouter`` knows the owners it is told of (weakly: the manager keeps them), so that
/// it can adopt their tasks after a relaunch (a task's events may come before anything else), and
/// hands them the transfers it adopts. Every download is one: the system-task engine takes the
/// transfers on for it.
protocol SystemTaskOwner: AnyObject, Sendable {
    /// The identifier its tasks are labelled with (their `taskDescription`).
    var id: DownloadID { get }

    /// What a transfer of its task acts on; nil if it can have none (it has no record).
    var systemTarget: SystemTransfer.Target? { get }

    /// A transfer of the owner changed: it ended, or the router adopted a task of an earlier
    /// process. Late or repeated calls do no harm: the owner reads the transfer's state.
    func systemTransferChanged(_ transfer: SystemTransfer) async
}
