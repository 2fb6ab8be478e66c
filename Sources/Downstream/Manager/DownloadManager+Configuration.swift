import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadManager {
    /// How a ``DownloadManager`` downloads: its identity, network, storage and progress settings.
    ///
    /// Every setting has a default; change the ones you need:
    ///
    /// ```swift
    /// let configuration = DownloadManager.Configuration(identifier: "com.example.app") {
    ///     $0.network.maximumConnectionsPerHost = 4
    ///     $0.progress.interval = .milliseconds(100)
    /// }
    /// ```
    public struct Configuration: Sendable {
        /// Names the manager; unique among the managers of an app.
        public var identifier: String
        /// Network settings.
        public var network = Network()
        /// Where partial files go.
        public var storage = Storage()
        /// How often progress is reported.
        public var progress = ProgressReporting()

        /// How many URLSession callbacks may wait for the delegate queue before URLSession is
        /// held back (about 16 KiB each).
        var pendingCallbackLimit = 32

        /// A configuration with default settings.
        public init(identifier: String) {
            self.identifier = identifier
        }

        /// A configuration with default settings, changed by `configure`.
        public init(identifier: String, _ configure: (inout Configuration) -> Void) {
            self.init(identifier: identifier)
            configure(&self)
        }
    }
}

extension DownloadManager.Configuration {
    /// Network settings.
    public struct Network: Sendable {
        /// How long a request may go without receiving a byte before it fails with
        /// `URLError.timedOut`. Whole seconds on Linux (rounded up). Default: 60 seconds.
        public var requestTimeout: Duration = .seconds(60)
        /// How many connections to one host may be open at once. Default: 6.
        public var maximumConnectionsPerHost = 6
        /// Headers sent with every request, below the request's own headers.
        public var additionalHeaders: [String: String] = [:]
        /// Whether requests may use cellular networks (Apple platforms). Default: true.
        public var allowsCellularAccess = true
        /// The most bytes one request asks for. A larger file comes in ranges of this size, one
        /// request after the other on the same connection. nil asks for the whole file at once.
        /// Default: 64 MiB.
        ///
        /// Linux URLSession holds on to about 2% of what a request receives (some 340 bytes for
        /// each 16 KiB chunk) until the request ends, so one request for a multi-gigabyte file
        /// would grow the process by tens of megabytes; bounded ranges keep that small.
        public var maximumBytesPerRequest: Int64? = 64 << 20

        /// Default network settings.
        public init() {}
    }

    /// Where partial files go.
    public struct Storage: Sendable {
        /// A directory for the partial files and their resume records. When nil (the default),
        /// a partial file lives beside its destination.
        public var partialsDirectory: URL?
        /// Slows every write to the partial file down to this rate, as a slow disk would. For
        /// tests and benchmarks of memory under backpressure.
        @_spi(Testing) public var simulatedDiskBytesPerSecond: Int?
        /// Bytes gathered before one write to the partial file.
        var writeBufferCapacity = 256 * 1024

        /// Default storage settings.
        public init() {}
    }

    /// How often progress is reported.
    public struct ProgressReporting: Sendable {
        /// The shortest time between two progress values of one download. Default: 50
        /// milliseconds (20 values per second).
        public var interval: Duration = .milliseconds(50)

        /// Default progress settings.
        public init() {}
    }
}

extension DownloadManager.Configuration {
    func makeDownloadSettings() -> Download.Settings {
        Download.Settings(
            progressInterval: progress.interval,
            maximumBytesPerRequest: network.maximumBytesPerRequest.flatMap { $0 > 0 ? $0 : nil },
            writeBufferCapacity: storage.writeBufferCapacity,
            diskThrottle: storage.simulatedDiskBytesPerSecond.map { DiskThrottle(bytesPerSecond: $0) })
    }

    func makeURLSessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = max(1, network.requestTimeout.inSeconds.rounded(.up))
        configuration.httpMaximumConnectionsPerHost = network.maximumConnectionsPerHost
        configuration.allowsCellularAccess = network.allowsCellularAccess
        if !network.additionalHeaders.isEmpty {
            configuration.httpAdditionalHeaders = network.additionalHeaders
        }
        return configuration
    }
}
