extension DownloadManager {
    /// The networks the manager's downloads may use now, unless their request says otherwise
    /// (``DownloadRequest/networkAccess``). Starts as
    /// ``Configuration-swift.struct/Network-swift.struct/access``.
    public nonisolated var networkAccess: NetworkAccess {
        context.settings.engine.networkAccess.access
    }

    /// Changes which networks the manager's downloads may use, while they run: a "Wi-Fi only"
    /// switch of the app's settings.
    ///
    /// Each setting of a request's own ``DownloadRequest/networkAccess`` that is not nil wins over
    /// the manager's. Every request sent from now on carries the new settings. When the manager's
    /// network monitor knows the kind of the network (the system's does on Apple platforms; see
    /// ``NetworkMonitor/isForbidden(_:by:)``), a running download on a network it may no longer
    /// use stops at once and waits for an allowed one (``DownloadState/waitingForNetwork``,
    /// ``DownloadEvent/waitingForNetwork(after:)``, with the policy in the error's
    /// ``DownloadError/networkUnavailableReason``); it spends no retry, and continues from its
    /// bytes on disk. A queued download waits so when its turn comes. A download waiting for a
    /// network its policy forbade goes back to the queue when the change lifts that policy.
    ///
    /// Not kept across launches: give the app's setting in
    /// ``Configuration-swift.struct/Network-swift.struct/access`` at each launch.
    public func setNetworkAccess(_ access: NetworkAccess) async {
        context.settings.engine.networkAccess.set(access)
        for download in ordered where download.state == .running || download.state == .waitingForNetwork {
            await download.networkAccessChanged()
        }
    }
}
