import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadManager {
    /// What a manager hears from its downloads (their ``DownloadObserver``): it passes their
    /// events on to the manager's subscribers and event monitors, counts their progress and states
    /// in the manager's totals and in those of the groups each download is in, queues their slot
    /// needs for the scheduler, and keeps the completion handlers.
    ///
    /// It holds no download and does not keep the manager alive.
    final class Observer: DownloadObserver {
        /// The events of every download (``DownloadManager/events``).
        let events = Broadcast<Event>(replayLimit: 0, bufferLimit: 1024)
        /// The totals of every download (``DownloadManager/progress``).
        let totals: ProgressTotals
        private let monitors: EventMonitorGroup?
        /// The trust rules, to tell monitors of every request to a host whose certificate is not
        /// checked.
        private let trust: TrustSettings
        private let schedulingLink: SchedulingLink
        private let handlers = Locked<[Download.CompletionHandler]>([])
        /// What is kept of the downloads that are in a group or watched by monitors, by
        /// identifier: most often none (thousands of downloads may be queued, and the manager's
        /// totals count them all by themselves). Its lock also guards what each download keeps of
        /// the manager's totals (``Download/counted``), and orders what reaches the totals and the
        /// monitors: a group that starts counting a download reads its state and progress under
        /// it, so no change of state slips between.
        private let members = Locked<[Download.ID: Member]>([:])

        private struct Member {
            /// The totals of the groups the download is in.
            var groups: [ProgressTotals] = []
            /// The sequence of the latest progress value sent to the monitors.
            var monitoredSequence: UInt64
        }

        /// The manager's clock, which progress totals are throttled on.
        let clock: ClockReadings

        init(
            progressInterval: Duration, monitors: [any DownloadEventMonitor], schedulingLink: SchedulingLink,
            trust: TrustSettings = TrustSettings(), clock: ClockReadings = .continuous
        ) {
            totals = ProgressTotals(interval: progressInterval, clock: clock)
            self.clock = clock
            self.trust = trust
            self.monitors = EventMonitorGroup(monitors)
            self.schedulingLink = schedulingLink
        }

        /// Counts `download` in the manager's totals, and in `group`'s when one is given.
        func track(_ download: Download, in group: ProgressTotals? = nil) {
            members.withLock { members in
                let latest = download.latestProgress
                let state = download.state
                // Counted once, however often it is tracked; each download keeps what the
                // manager's totals counted of it, under this lock.
                totals.track(&download.counted, latest, state: state)
                guard monitors != nil || group != nil else { return }
                var member = members[download.id] ?? Member(monitoredSequence: latest.sequence)
                if let group {
                    member.groups.append(group)
                    group.track(download.id, latest, state: state)
                }
                members[download.id] = member
            }
        }

        /// Returns once the monitors were told everything that happened so far.
        func drainMonitors() async {
            await monitors?.drain()
        }

        /// Tells the monitors, once, that the manager uses `transport` instead of the one it would.
        func transportFellBack(to transport: String, reason: String) {
            monitors?.send { $0.transportFellBack(to: transport, reason: reason) }
        }

        /// Tells the monitors, once, that digests are computed by `implementation` instead of the
        /// platform's code.
        func digestsFellBack(to implementation: String, reason: String) {
            monitors?.send { $0.digestsFellBack(to: implementation, reason: reason) }
        }

        /// Adds a handler that every download runs when it completes.
        func addCompletionHandler(_ handler: @escaping Download.CompletionHandler) {
            handlers.withLock { $0.append(handler) }
        }

        // MARK: - DownloadObserver

        var completionHandlers: [Download.CompletionHandler] {
            handlers.withLock { $0 }
        }

        func download(_ download: Download, didPublish event: DownloadEvent) {
            events.publish(Event(download: download, event: event))
            monitors?.send { $0.download(download, didPublish: event) }
        }

        func download(_ download: Download, didProgress update: Download.ProgressUpdate) {
            members.withLock { members in
                totals.update(&download.counted, update)
                guard var member = members[download.id] else { return }
                for group in member.groups {
                    group.update(download.id, update)
                }
                if let monitors, update.sequence > member.monitoredSequence {
                    member.monitoredSequence = update.sequence
                    members[download.id] = member
                    let progress = update.progress
                    monitors.sendProgress { $0.download(download, didProgress: progress) }
                }
            }
        }

        func download(_ download: Download, didChangeStateTo state: DownloadState) {
            members.withLock { members in
                totals.stateChanged(&download.counted, to: state)
                for group in members[download.id]?.groups ?? [] {
                    group.stateChanged(download.id, to: state)
                }
            }
        }

        func download(
            _ download: Download, didChangeSlotNeed need: Download.SlotNeed,
            priority: DownloadRequest.Priority
        ) {
            schedulingLink.notify(download, need: need, priority: priority)
        }

        func connections(for download: Download, upTo count: Int) async -> Int {
            await schedulingLink.borrowConnections(for: download, upTo: count)
        }

        func downloadReturnsConnections(_ download: Download) {
            schedulingLink.returnConnections(of: download, priority: download.priority)
        }

        func download(_ download: Download, willSend request: URLRequest) {
            if let host = request.url?.host, trust.rule(for: host)?.acceptsAnyCertificate == true {
                monitors?.send { $0.download(download, acceptsAnyCertificateOf: host) }
            }
            monitors?.send { $0.download(download, willSend: request) }
        }

        func download(_ download: Download, didReceive response: ServerResponse) {
            monitors?.send { $0.download(download, didReceive: response) }
        }
    }
}
