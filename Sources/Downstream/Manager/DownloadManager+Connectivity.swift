extension DownloadManager.Configuration {
    /// What downloads do when there is no network at all.
    ///
    /// A request that fails because there is no way to the server (not connected, no route, host
    /// not found, connection lost) while the ``monitor`` says the network is down puts the
    /// download in ``DownloadState/waitingForNetwork``: it spends none of its retries, continues
    /// from its bytes when the network is back, and fails with
    /// ``DownloadError/Kind/networkUnavailable`` if that takes longer than ``maximumWait``.
    public struct Connectivity: Sendable {
        /// How long a download waits for the network before it fails; nil waits as long as it
        /// takes. Default: 1 hour.
        public var maximumWait: Duration? = .seconds(3600)
        /// Tells whether there is a network, and when it is back. Default: nil, the system's (the
        /// network path on Apple platforms; the network interfaces, probed every 1, 2, 4… up to 30
        /// seconds while a download waits, on Linux).
        public var monitor: (any NetworkMonitor)?

        /// Default connectivity settings.
        public init() {}
    }
}
