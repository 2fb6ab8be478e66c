import Foundation

/// Several downloads that belong together — an album, a season, a map region — with one combined
/// progress, one wait for all their files, and one pause, resume and cancel.
///
/// Make one with ``DownloadManager/downloadGroup(_:)``. The downloads are ordinary downloads of
/// the manager (scheduled, stored and restored like any other); the group is a view of them.
public final class DownloadGroup: Sendable {
    /// The group's downloads, in the order of the requests.
    public let downloads: [Download]
    private let totals: ProgressTotals

    /// - Parameter observer: the observer of the downloads' manager, which counts them in the
    ///   group's totals.
    init(downloads: [Download], observer: DownloadManager.Observer, progressInterval: Duration) {
        self.downloads = downloads
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
