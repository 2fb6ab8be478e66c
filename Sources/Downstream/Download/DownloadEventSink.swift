/// Where a download's events go: its own subscribers, and its manager's (see
/// ``DownloadManager/events``).
final class DownloadEventSink: Sendable {
    private struct Forwarding {
        weak var download: Download?
        var managerEvents: Broadcast<DownloadManager.Event>
    }

    /// The download's own subscribers: each first gets the latest 64 events.
    let broadcast = Broadcast<DownloadEvent>(replayLimit: 64)
    private let forwarding = Locked<Forwarding?>(nil)

    /// Also sends every event of `download` to `managerEvents`.
    func forward(_ download: Download, to managerEvents: Broadcast<DownloadManager.Event>) {
        forwarding.withLock { $0 = Forwarding(download: download, managerEvents: managerEvents) }
    }

    func publish(_ event: DownloadEvent) {
        broadcast.publish(event)
        let forwarding = self.forwarding.withLock { $0 }
        if let forwarding, let download = forwarding.download {
            forwarding.managerEvents.publish(DownloadManager.Event(download: download, event: event))
        }
    }
}
