extension DownloadManager {
    /// Downloads what each of `requests` describes, as one group: one progress, one wait, one
    /// cancel (see ``DownloadGroup``), and limits of its own.
    ///
    /// - Parameters:
    ///   - requests: the files of the group.
    ///   - maximumConcurrentDownloads: how many of the group's downloads run at once, within the
    ///     manager's limits; nil (the default): only the manager's limits.
    ///   - priority: where the group's downloads stand in the queue among the manager's others;
    ///     within the group, their own priorities order them. nil (the default): each download's
    ///     own priority.
    public func downloadGroup(
        _ requests: [DownloadRequest], maximumConcurrentDownloads: Int? = nil,
        priority: DownloadRequest.Priority? = nil
    ) async -> DownloadGroup {
        let settings = GroupScheduling.Settings(
            maximumConcurrentDownloads: maximumConcurrentDownloads, priority: priority)
        let group = groupScheduling.makeGroup(settings)
        if let limit = settings.maximumConcurrentDownloads {
            // Before its first download is queued.
            _ = scheduler.setLimit(ofGroup: group, to: limit)
        }
        var downloads: [Download] = []
        for request in requests {
            downloads.append(await download(request, startsPaused: false, inGroup: group))
        }
        return DownloadGroup(
            downloads: downloads, number: group, settings: settings, manager: self, observer: observer,
            progressInterval: configuration.progress.interval)
    }

    /// Limits the downloads of group `group` running at once to `limit` (nil: only the manager's
    /// limits), at once: more start, or the group's lowest-ranked running ones go back to the
    /// queue, keeping their bytes.
    func setLimit(ofGroup group: Int, to limit: Int?) {
        var settings = groupScheduling.settings(of: group) ?? .init()
        settings.maximumConcurrentDownloads = limit
        groupScheduling.set(settings, of: group)
        let (granted, stopped) = scheduler.setLimit(ofGroup: group, to: limit)
        for id in stopped {
            if let download = byID[id] {
                Task { await download.preempt() }
            }
        }
        start(granted)
    }

    /// Sets the priority of group `group` (of `downloads`) among the manager's downloads (nil:
    /// each download's own), and re-ranks its queued and running downloads.
    func setPriority(ofGroup group: Int, to priority: DownloadRequest.Priority?, downloads: [Download]) {
        var settings = groupScheduling.settings(of: group) ?? .init()
        settings.priority = priority
        groupScheduling.set(settings, of: group)
        var granted: [Download.ID] = []
        for download in downloads where groupScheduling.group(of: download.id) == group {
            let rank = groupScheduling.schedulerPriority(download.priority, inGroup: group)
            if let current = scheduler.priority(of: download.id), current != rank {
                granted += scheduler.setPriority(download.id, to: rank)
            }
        }
        start(granted)
    }
}
