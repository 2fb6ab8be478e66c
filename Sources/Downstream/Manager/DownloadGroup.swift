import Foundation

/// Several downloads that belong together — an album, a season, a map region — with one combined
/// progress, one wait for all their files, and one pause, resume and cancel.
///
/// Make one with ``DownloadManager/downloadGroup(_:maximumConcurrentDownloads:priority:)``. The
/// downloads are ordinary downloads of the manager (scheduled, stored and restored like any
/// other); the group is a view of them, with a limit and a priority of its own in the manager's
/// queue while the manager lives (a relaunch restores the downloads, not the group).
public final class DownloadGroup: Sendable {
    /// The group's downloads, in the order of the requests.
    public let downloads: [Download]
    private let totals: ProgressTotals
    /// The group's number in its manager's queue.
    private let number: Int
    private let settings: Locked<GroupScheduling.Settings>
    private weak let manager: DownloadManager?

    /// - Parameter observer: the observer of the downloads' manager, which counts them in the
    ///   group's totals.
    init(
        downloads: [Download], number: Int, settings: GroupScheduling.Settings, manager: DownloadManager,
        observer: DownloadManager.Observer, progressInterval: Duration
    ) {
        self.downloads = downloads
        self.number = number
        self.settings = Locked(settings)
        self.manager = manager
        totals = ProgressTotals(interval: progressInterval, clock: observer.clock)
        for download in downloads {
            observer.track(download, in: totals)
        }
    }

    /// The downloads' progress together, as a new subscription on every access: first the
    /// current totals, then coalesced updates.
    public var progress: AsyncStream<AggregateProgress> {
        totals.subscribe()
    }

    /// The downloads' current totals.
    public var currentProgress: AggregateProgress {
        totals.current
    }

    /// Every download's outcome, in the order of the downloads, once all have ended (completed,
    /// failed or cancelled). Does not end when the waiting task is cancelled.
    public var results: [Result<URL, DownloadError>] {
        get async {
            var results: [Result<URL, DownloadError>] = []
            for download in downloads {
                results.append(await download.outcome())
            }
            return results
        }
    }

    /// Every download's file, in the order of the downloads, once all completed.
    ///
    /// Throws the first ``DownloadError`` in the order of the downloads as soon as the group can
    /// no longer complete (the other downloads go on), or `CancellationError` if the waiting task
    /// is cancelled.
    public var fileURLs: [URL] {
        get async throws {
            try await withThrowingTaskGroup(of: (Int, URL).self) { group in
                for (index, download) in downloads.enumerated() {
                    group.addTask { (index, try await download.fileURL) }
                }
                var files = [URL?](repeating: nil, count: downloads.count)
                for try await (index, file) in group {
                    files[index] = file
                }
                return files.map { $0! }
            }
        }
    }

    /// How many of the group's downloads run at once, within the manager's limits; nil: only the
    /// manager's limits.
    public var maximumConcurrentDownloads: Int? {
        settings.value.maximumConcurrentDownloads
    }

    /// Where the group's downloads stand in the queue among the manager's others (within the
    /// group, their own priorities order them); nil: each download's own priority.
    public var priority: DownloadRequest.Priority? {
        settings.value.priority
    }

    /// Changes how many of the group's downloads run at once (nil: only the manager's limits), at
    /// once: more start if the limit grew; if it shrank, the group's lowest-priority running
    /// downloads stop and go back to the queue, keeping their bytes. A limit of 0 holds the
    /// group's downloads in the queue.
    public func setMaximumConcurrentDownloads(_ limit: Int?) async {
        let limit = limit.map { max(0, $0) }
        settings.withLock { $0.maximumConcurrentDownloads = limit }
        await manager?.setLimit(ofGroup: number, to: limit)
    }

    /// Changes where the group's downloads stand among the manager's others (nil: each
    /// download's own priority). Queued downloads move in the queue; running ones keep their
    /// slots, except when limits shrink.
    public func setPriority(_ priority: DownloadRequest.Priority?) async {
        settings.withLock { $0.priority = priority }
        await manager?.setPriority(ofGroup: number, to: priority, downloads: downloads)
    }

    /// Pauses every download of the group.
    public func pause() async {
        await forEach { await $0.pause() }
    }

    /// Resumes every paused or failed download of the group.
    public func resume() async {
        await forEach { await $0.resume() }
    }

    /// Cancels every download of the group; see ``Download/cancel(keepingPartialData:)``.
    public func cancel(keepingPartialData: Bool = false) async {
        await forEach { await $0.cancel(keepingPartialData: keepingPartialData) }
    }

    private func forEach(_ body: @escaping @Sendable (Download) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for download in downloads {
                group.addTask { await body(download) }
            }
        }
    }
}
