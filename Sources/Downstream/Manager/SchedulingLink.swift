/// Connects downloads to their manager's scheduler: each change of a download's slot need or
/// priority is queued, in order, and the manager applies the queue in one turn of its actor: a
/// burst of changes (many downloads ending at once) costs one hop, not one each. It does not keep
/// the manager alive, and exists before it (restored downloads are made while the manager is).
final class SchedulingLink: Sendable {
    struct Change: Sendable {
        var download: Download
        var need: Download.SlotNeed
        var priority: DownloadRequest.Priority
        /// The download gives back the extra connections it borrowed (need and priority unchanged).
        var returnsConnections = false
    }

    private struct State {
        var pending: [Change] = []
        /// Whether the manager was asked to apply the queue and has not found it empty since.
        var isApplying = false
        weak var manager: DownloadManager?
        var isOpen = true
    }

    private let state = Locked(State())

    /// Lets `manager` apply the changes, queued already and to come, for as long as it exists.
    func connect(_ manager: DownloadManager) {
        let wake = state.withLock { state -> Bool in
            state.manager = manager
            return Self.claimApplying(&state)
        }
        if wake { Task { await manager.applySchedulingChanges() } }
    }

    /// Drops the queue and every later change (the manager is gone or invalidated).
    func disconnect() {
        state.withLock { state in
            state.isOpen = false
            state.pending = []
            state.manager = nil
        }
    }

    /// The queued changes, oldest first; nil when there are none, and then the next change asks
    /// the manager again.
    func takePending() -> [Change]? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.isApplying = false
                return nil
            }
            defer { state.pending = [] }
            return state.pending
        }
    }

    /// Queues a download's change (see ``DownloadObserver/download(_:didChangeSlotNeed:priority:)``).
    func notify(_ download: Download, need: Download.SlotNeed, priority: DownloadRequest.Priority) {
        notify(Change(download: download, need: need, priority: priority))
    }

    private func notify(_ change: Change) {
        let manager = state.withLock { state -> DownloadManager? in
            guard state.isOpen else { return nil }
            state.pending.append(change)
            return Self.claimApplying(&state) ? state.manager : nil
        }
        if let manager { Task { await manager.applySchedulingChanges() } }
    }

    /// Queues `download`'s return of its extra connections, in order with its other changes.
    func returnConnections(of download: Download, priority: DownloadRequest.Priority) {
        notify(
            Change(download: download, need: .holding, priority: priority, returnsConnections: true))
    }

    /// Asks the manager for up to `count` extra connections for `download`; 0 without a manager.
    func borrowConnections(for download: Download, upTo count: Int) async -> Int {
        guard let manager = state.withLock({ $0.isOpen ? $0.manager : nil }) else { return 0 }
        return await manager.borrowConnections(for: download, upTo: count)
    }

    /// Whether the caller must ask the manager to apply the queue (no one asked yet, and there is
    /// something to apply); marks it asked.
    private static func claimApplying(_ state: inout State) -> Bool {
        guard !state.isApplying, !state.pending.isEmpty, state.manager != nil else { return false }
        state.isApplying = true
        return true
    }
}
