import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Routes the events of a system session's download tasks to their transfers, by the download
/// identifier each task is labelled with.
///
/// A task this process did not start (one found after a relaunch, whose events may come before
/// anything else) is adopted: the router makes a transfer for it and tells its download. A task
/// no download knows, or a second task of a download that has one, is unclaimed: a finished file
/// is kept in the store's `unclaimed` directory, a running task is cancelled, and both are
/// reported. Called on the session's serial delegate queue (or by tests replaying events, through
/// the session events below, which are all of it that tests see).
package final class SystemTaskRouter: Sendable {
    private struct State {
        var transfers: [DownloadID: SystemTransfer] = [:]
        var owners: [DownloadID: Owner] = [:]
        /// Transfers adopted before the session listed its tasks, for ``reattach(_:)``. Later
        /// ones go to their owners only: kept here, an adopted transfer would keep its download's
        /// progress and record alive with the router.
        var adopted: [SystemTransfer] = []
        var hasReattached = false
        var unclaimed: [UnclaimedTask] = []
        /// Tasks that completed: their late or repeated events are ignored.
        var completedTasks: Set<Int> = []
        var isDetached = false
    }

    /// A download the router was told of. Weak: the manager and the app keep downloads, and a
    /// download keeps its engines, this router among them; a strong one would keep every download
    /// of a released manager alive, with the router and its session. The events of a download
    /// that is gone are ignored, as after ``detach()``: the system keeps its task for the next
    /// manager.
    private struct Owner {
        weak var owner: (any SystemTaskOwner)?
    }

    let backgroundEvents = BackgroundEvents()
    private let unclaimedDirectory: URL
    private let state = Locked(State())
    /// The session, set once it exists (it needs the router as its delegate's target).
    private let sessionBox = Locked<(any SystemSession)?>(nil)

    init(unclaimedDirectory: URL) {
        self.unclaimedDirectory = unclaimedDirectory
    }

    var session: (any SystemSession)? {
        get { sessionBox.value }
        set { sessionBox.withLock { $0 = newValue } }
    }

    var unclaimed: [UnclaimedTask] {
        state.withLock { $0.unclaimed }
    }

    /// The owner of the tasks labelled `id`, if the router was told of it.
    func owner(_ id: DownloadID) -> (any SystemTaskOwner)? {
        state.withLock { $0.owners[id]?.owner }
    }

    /// Stops routing: the manager is gone. Later events are ignored (a background session's
    /// tasks are the next manager's to adopt).
    func detach() {
        state.withLock { state in
            state.isDetached = true
            state.owners = [:]
            state.transfers = [:]
            state.adopted = []
        }
    }

    /// Makes `owner` known, so that its tasks can be adopted.
    func register(_ owner: any SystemTaskOwner) {
        state.withLock { $0.owners[owner.id] = Owner(owner: owner) }
    }

    /// Routes the tasks of `transfer`'s download to it.
    func bind(_ transfer: SystemTransfer) {
        state.withLock { $0.transfers[transfer.target.downloadID] = transfer }
    }

    /// Adopts every active task of a relaunched session and cancels the ones no download claims.
    /// Returns every transfer adopted so far, by events or now. Called once, when the session
    /// listed its tasks.
    func reattach(_ tasks: [any SystemTask]) -> [SystemTransfer] {
        for task in tasks where task.isActive {
            _ = transfer(for: task, finished: false)
        }
        return state.withLock { state in
            state.hasReattached = true
            defer { state.adopted = [] }
            return state.adopted
        }
    }

    // MARK: - Session events

    /// `urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)`;
    /// `expected` is -1 (`NSURLSessionTransferSizeUnknown`) when the length is unknown.
    package func wrote(_ task: any SystemTask, total: Int64, expected: Int64) {
        transfer(for: task, finished: false)?.wrote(total: total, expected: expected)
    }

    /// `urlSession(_:downloadTask:didResumeAtOffset:expectedTotalBytes:)`.
    package func resumed(_ task: any SystemTask, at offset: Int64, expected: Int64) {
        transfer(for: task, finished: false)?.resumed(at: offset, expected: expected)
    }

    /// `urlSession(_:downloadTask:didFinishDownloadingTo:)`: the file at `location` is moved away
    /// (or deleted) before this returns, as the system deletes it then.
    package func finishedDownloading(_ task: any SystemTask, to location: URL) {
        if let transfer = transfer(for: task, finished: true, file: location) {
            transfer.finishedDownloading(to: location, response: task.response)
        }
    }

    /// `urlSession(_:task:didCompleteWithError:)`; Apple's resume data, if any, is in the error's
    /// `userInfo` under ``URLSessionDownloadTaskResumeDataKey``.
    package func completed(_ task: any SystemTask, error: (any Error)?) {
        let transfer = transfer(for: task, finished: true)
        state.withLock { state in
            state.completedTasks.insert(task.taskIdentifier)
            if let transfer, state.transfers[transfer.target.downloadID] === transfer {
                state.transfers[transfer.target.downloadID] = nil
            }
        }
        transfer?.completed(error: error)
    }

    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
    package func sessionFinishedEvents() {
        backgroundEvents.sessionDidFinishEvents()
    }

    // MARK: - Private

    private enum Resolution {
        case transfer(SystemTransfer, isAdopted: Bool)
        case unclaimed(reason: String, isReported: Bool)
        /// A late or repeated event of a task that completed.
        case alreadyHandled
        /// The manager, or the task's download, is gone: the system keeps the task for the next
        /// manager.
        case detached
    }

    /// The transfer of `task`, adopting it if its download has none; nil for an unclaimed task,
    /// which is then dealt with (`file` is a finished task's file, to keep).
    private func transfer(for task: any SystemTask, finished: Bool, file: URL? = nil) -> SystemTransfer? {
        let session = self.session
        let resolution = state.withLock { state -> Resolution in
            if state.isDetached {
                return .detached
            }
            if state.completedTasks.contains(task.taskIdentifier) {
                return .alreadyHandled
            }
            if state.unclaimed.contains(where: { $0.taskIdentifier == task.taskIdentifier }) {
                return .unclaimed(reason: "", isReported: true)
            }
            guard let id = task.downloadID, let registered = state.owners[id] else {
                return .unclaimed(reason: "no download of this manager knows the task", isReported: false)
            }
            // Let go of by the app and by its manager: as after ``detach()``.
            guard let owner = registered.owner else { return .detached }
            guard let target = owner.systemTarget, let session else {
                return .unclaimed(reason: "no download of this manager knows the task", isReported: false)
            }
            if let current = state.transfers[id] {
                return current.isTransfer(of: task)
                    ? .transfer(current, isAdopted: false)
                    : .unclaimed(reason: "the download runs another task", isReported: false)
            }
            let adopted = SystemTransfer(
                target: target, session: session, backgroundEvents: backgroundEvents,
                usesResumeData: false, announcesResume: false, task: task)
            state.transfers[id] = adopted
            if !state.hasReattached {
                state.adopted.append(adopted)
            }
            return .transfer(adopted, isAdopted: true)
        }
        switch resolution {
        case .transfer(let transfer, let isAdopted):
            if isAdopted {
                transfer.target.notify(transfer)
            }
            return transfer
        case .unclaimed(let reason, let isReported):
            // A task reported already is only dealt with again for the file it finished with.
            if !isReported || file != nil {
                keepUnclaimed(task, finished: finished, file: file, reason: reason, isReported: isReported)
            }
            return nil
        case .alreadyHandled:
            if let file { POSIXFile.remove(file) }
            return nil
        case .detached:
            return nil
        }
    }

    private func keepUnclaimed(_ task: any SystemTask, finished: Bool, file: URL?, reason: String, isReported: Bool) {
        var kept: URL?
        var outcome: String
        var cancels = false
        if let file {
            let name = FileName.suggested(contentDisposition: nil, url: task.response?.url ?? file)
            let destination = unclaimedDirectory.appendingPathComponent(
                "\(task.taskIdentifier)-\(name)", isDirectory: false)
            do {
                try POSIXFile.createPrivateDirectory(unclaimedDirectory)
                try FilePlacement.move(file, to: destination)
                kept = destination
                outcome = "its file was kept"
            } catch {
                POSIXFile.remove(file)
                outcome = "its file could not be kept (\(error.reason)) and was deleted"
            }
        } else if !finished, session != nil {
            cancels = true
            outcome = "it was cancelled"
        } else {
            outcome = "it ended"
        }
        state.withLock { state in
            if isReported, let index = state.unclaimed.firstIndex(where: { $0.taskIdentifier == task.taskIdentifier }) {
                let earlier = state.unclaimed[index]
                state.unclaimed[index] = UnclaimedTask(
                    taskIdentifier: earlier.taskIdentifier, taskDescription: earlier.taskDescription,
                    url: earlier.url ?? task.response?.url, keptFile: kept, reason: "\(earlier.reason); then \(outcome)"
                )
            } else {
                state.unclaimed.append(
                    UnclaimedTask(
                        taskIdentifier: task.taskIdentifier, taskDescription: task.taskDescription,
                        url: task.response?.url, keptFile: kept, reason: "\(reason): \(outcome)"))
            }
        }
        // Reported before it is cancelled: whoever sees the cancel finds the report.
        if cancels {
            session?.cancel(task, producingResumeData: false) { _ in }
        }
    }
}
