import Foundation

extension Download {
    /// What a download needs once someone observes it or it runs: its progress reporting, its
    /// event subscribers, the tasks waiting for its file, and its validators and response
    /// handlers. Made on first use: a queued download that nobody observes holds none of it
    /// (thousands may be queued, and a relaunch restores them all).
    final class Parts: Sendable {
        let progressReporter: ProgressReporter
        /// The download's own event subscribers: each first gets the latest 64 events.
        let eventBroadcast = Broadcast<DownloadEvent>(replayLimit: 64)
        let result = ResultWaiters<URL, DownloadError>()
        /// The validators and response handlers added to the download.
        let responseChain = ResponseChain()

        init(progressReporter: ProgressReporter, firstEvent: DownloadEvent) {
            self.progressReporter = progressReporter
            eventBroadcast.publish(firstEvent)
        }
    }

    /// The download's parts, made now if they were not.
    nonisolated var parts: Parts {
        withSnapshot { snapshot in
            if let parts = snapshot.parts { return parts }
            let context = context
            let reporter = ProgressReporter(
                interval: context.settings.progressInterval, clock: context.settings.clockReadings,
                bytesReceived: initialBytes, expectedBytes: initialExpectedBytes,
                observe: { [weak self] update in
                    if let self {
                        context.observer.download(self, didProgress: update)
                    }
                })
            let parts = Parts(progressReporter: reporter, firstEvent: snapshot.startedPaused ? .paused : .queued)
            snapshot.parts = parts
            return parts
        }
    }

    /// The download's parts if they were made.
    nonisolated var madeParts: Parts? {
        withSnapshot { $0.parts }
    }

    nonisolated var progressReporter: ProgressReporter { parts.progressReporter }
    nonisolated var eventBroadcast: Broadcast<DownloadEvent> { parts.eventBroadcast }
    nonisolated var result: ResultWaiters<URL, DownloadError> { parts.result }
    nonisolated var responseChain: ResponseChain { parts.responseChain }

    /// The latest progress, numbered (see ``ProgressReporter/latest``), without making the parts.
    nonisolated var latestProgress: ProgressUpdate {
        madeParts?.progressReporter.latest
            ?? ProgressUpdate(
                progress: DownloadProgress(bytesReceived: initialBytes, expectedBytes: initialExpectedBytes),
                sequence: 0)
    }
}
