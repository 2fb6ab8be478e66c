import Foundation

extension Download {
    /// What the download publishes, and to whom, once someone observes it or it runs: its
    /// progress reporting, its event subscribers, the tasks waiting for its file, and its
    /// validators and response handlers. Made on first use: a queued download that nobody
    /// observes holds none of it (thousands may be queued, and a relaunch restores them all).
    final class Publication: Sendable {
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

    /// The download's publication, made now if it was not.
    nonisolated var publication: Publication {
        withSnapshot { snapshot in
            if let publication = snapshot.publication { return publication }
            let context = context
            let reporter = ProgressReporter(
                interval: context.settings.progressInterval, clock: context.settings.clockReadings,
                bytesReceived: initialBytes, expectedBytes: initialExpectedBytes,
                observe: { [weak self] update in
                    if let self {
                        context.observer.download(self, didProgress: update)
                    }
                })
            let publication = Publication(
                progressReporter: reporter, firstEvent: snapshot.startedPaused ? .paused : .queued)
            snapshot.publication = publication
            return publication
        }
    }

    /// The download's publication if it was made.
    nonisolated var madePublication: Publication? {
        withSnapshot { $0.publication }
    }

    nonisolated var progressReporter: ProgressReporter { publication.progressReporter }
    nonisolated var eventBroadcast: Broadcast<DownloadEvent> { publication.eventBroadcast }
    nonisolated var result: ResultWaiters<URL, DownloadError> { publication.result }
    nonisolated var responseChain: ResponseChain { publication.responseChain }

    /// The latest progress, numbered (see ``ProgressReporter/latest``), without making the publication.
    nonisolated var latestProgress: ProgressUpdate {
        madePublication?.progressReporter.latest
            ?? ProgressUpdate(
                progress: DownloadProgress(bytesReceived: initialBytes, expectedBytes: initialExpectedBytes),
                sequence: 0)
    }
}
