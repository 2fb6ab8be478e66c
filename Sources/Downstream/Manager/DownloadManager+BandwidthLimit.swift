extension DownloadManager {
    /// The most bytes per second all the manager's downloads may receive together; nil when
    /// there is no limit. Starts as ``Configuration-swift.struct/Network-swift.struct/maximumBytesPerSecond``.
    public nonisolated var bandwidthLimit: Int? {
        context.settings.engine.transfer.limiter?.overall
    }

    /// Limits all the manager's downloads together to `bytesPerSecond` (nil or 0: no limit), from
    /// their next chunks on. On libcurl the downloads take turns under the limit, each getting a
    /// fair share; on URLSession the total holds but the session decides who gets it (see the
    /// article Managing many downloads). Not kept across launches: the configuration's value is
    /// the limit at each start.
    public nonisolated func setBandwidthLimit(_ bytesPerSecond: Int?) {
        context.settings.engine.transfer.limiter?.setOverall(bytesPerSecond.flatMap { $0 > 0 ? $0 : nil })
    }
}

extension DownloadManager {
    /// The limiter of the manager's transfers.
    nonisolated var bandwidthLimiter: BandwidthLimiter? {
        context.settings.engine.transfer.limiter
    }
}
