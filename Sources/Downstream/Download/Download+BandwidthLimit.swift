extension Download {
    /// The most bytes per second this download may receive, set by its request
    /// (``DownloadRequest/maximumBytesPerSecond``) or by ``setBandwidthLimit(_:)``; nil when it
    /// has no limit of its own.
    public nonisolated var bandwidthLimit: Int? {
        context.settings.engine.transfer.limiter?.limit(for: id)
    }

    /// Limits this download to `bytesPerSecond` (nil: no limit of its own) from its next chunk
    /// on, counting every connection it uses. The limit is kept with the download's record: a
    /// relaunch restores it. The manager's limit, if any, still applies as well.
    public nonisolated func setBandwidthLimit(_ bytesPerSecond: Int?) {
        let limit = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        context.settings.engine.transfer.limiter?.setLimit(limit, for: id)
        try? recordFile?.update { $0.request.maximumBytesPerSecond = limit }
    }
}
