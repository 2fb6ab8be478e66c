import Foundation

/// A manager's event monitors, each fed through a serial queue of its own so that the transfer
/// never waits for one.
final class EventMonitorGroup: Sendable {
    /// Calls waiting for one monitor beyond which its progress calls are dropped.
    static let progressBacklogLimit = 256

    private final class Entry: Sendable {
        let monitor: any DownloadEventMonitor
        let queue: DispatchQueue
        /// Calls queued and not yet made.
        let backlog = Locked(0)

        init(monitor: any DownloadEventMonitor, index: Int) {
            self.monitor = monitor
            queue = DispatchQueue(label: "Downstream.monitor.\(index)")
        }
    }

    private let entries: [Entry]

    /// nil when there are no monitors: nothing to do on any path.
    init?(_ monitors: [any DownloadEventMonitor]) {
        guard !monitors.isEmpty else { return nil }
        entries = monitors.enumerated().map { Entry(monitor: $1, index: $0) }
    }

    /// Calls `body` with each monitor, later, on the monitor's queue.
    func send(_ body: @escaping @Sendable (any DownloadEventMonitor) -> Void) {
        for entry in entries {
            enqueue(body, on: entry)
        }
    }

    /// Like ``send(_:)``, but skipped for monitors that are far behind: progress values replace
    /// each other, so a late one only costs memory.
    func sendProgress(_ body: @escaping @Sendable (any DownloadEventMonitor) -> Void) {
        for entry in entries where entry.backlog.withLock({ $0 }) < Self.progressBacklogLimit {
            enqueue(body, on: entry)
        }
    }

    /// Returns once every call queued before this one has been made, by every monitor.
    func drain() async {
        for entry in entries {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                entry.queue.async { continuation.resume() }
            }
        }
    }

    private func enqueue(_ body: @escaping @Sendable (any DownloadEventMonitor) -> Void, on entry: Entry) {
        entry.backlog.withLock { $0 += 1 }
        entry.queue.async {
            body(entry.monitor)
            entry.backlog.withLock { $0 -= 1 }
        }
    }
}
