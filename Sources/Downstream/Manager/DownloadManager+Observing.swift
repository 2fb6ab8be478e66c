extension DownloadManager {
    /// An event of one of the manager's downloads (see ``DownloadManager/events``).
    public struct Event: Sendable {
        /// The download it happened to.
        public let download: Download
        /// What happened.
        public let event: DownloadEvent
    }

    /// The events of every download of the manager, as a new subscription on every access: what
    /// a list of downloads needs to stay up to date.
    ///
    /// A subscription gets the events that happen after it starts; it keeps at most the latest
    /// 1024 a consumer has not read yet.
    public nonisolated var events: AsyncStream<Event> {
        observer.events.subscribe()
    }

    /// The progress of all the manager's downloads together, as a new subscription on every
    /// access: first the current totals, then updates coalesced like those of a download.
    public nonisolated var progress: AsyncStream<AggregateProgress> {
        observer.totals.subscribe()
    }

    /// The current totals of all the manager's downloads.
    public nonisolated var currentProgress: AggregateProgress {
        observer.totals.current
    }

    /// Counts `download` in the manager's totals (its events reach the manager's subscribers
    /// through the observer of the context they share).
    nonisolated func observe(_ download: Download) {
        observer.track(download)
    }
}
