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
        /// Where records and partial files go, and how often progress is saved.
        public var storage = Storage()
        /// What happens to stored downloads when the manager starts.
        public var restoration = Restoration()
        /// How often progress is reported.
        public var progress = ProgressReporting()
        /// How many downloads run at once.
        public var scheduling = Scheduling()
        /// How a download makes sure the bytes it continues are of the same file.
        public var resumption = Resumption()
        /// How downloads check their files: against the digests their servers give, too.
        public var integrity = Integrity()
        /// When failed requests are tried again by themselves.
        public var retry = RetryPolicy()
        /// A background session for the downloads, on Apple platforms; nil (the default) for an
        /// ordinary session of data tasks.
        public var background: Background?
        /// How redirects are followed: a limit, no downgrade to HTTP, credentials kept to their
        /// origin, and your own decision.
        public var redirects = Redirects()
        /// Whom downloads trust, host by host: authorities of your own, public-key pins.
        public var trust = TrustSettings()
        /// How downloads answer servers that ask for credentials.
        public var authentication = Authentication()
        /// How downloads get a fresh URL when theirs is refused (an expired signed link).
        public var urlRefresh = URLRefresh()
        /// What downloads do when there is no network at all.
        public var connectivity = Connectivity()
        /// Observers of every request, response, resume, retry, progress value and end, for
        /// logging and metrics (``ConsoleEventLogger`` is ready to use). Default: none.
        public var eventMonitors: [any DownloadEventMonitor] = []

        /// Makes the system session in place of a real URLSession, for a manager with
        /// ``background`` settings (on any platform): a seam for tests that replay recorded
        /// session events through the router it is given (DownstreamTesting's
        /// `BackgroundSessionReplay`).
        package var makeSystemSession: (@Sendable (SystemTaskRouter) -> any SystemSession)?
        /// The clock of retry delays: a seam for tests, which advance a manual one.
        var clock: any Clock<Duration> = ContinuousClock()

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

// The sections that the layers below the manager read are declared there, under names of their
// own; these are their names in the configuration.
extension DownloadManager.Configuration {
    /// How often a running download saves how far it got: ``CheckpointSettings``.
    public typealias Checkpoints = CheckpointSettings
    /// When a failed request is tried again by itself, and when: ``Downstream/RetryPolicy``.
    public typealias RetryPolicy = Downstream.RetryPolicy
    /// How redirects are followed: ``RedirectSettings``.
    public typealias Redirects = RedirectSettings
    /// How downloads answer servers that ask for credentials: ``AuthenticationSettings``.
    public typealias Authentication = AuthenticationSettings
    /// How downloads get a fresh URL when theirs is refused: ``URLRefreshSettings``.
    public typealias URLRefresh = URLRefreshSettings
}

extension DownloadManager.Configuration {
    /// Network settings.
    public struct Network: Sendable {
        /// How long a request may go without receiving a byte before it fails with
        /// `URLError.timedOut`: that long after its last byte (or its start), on every transport.
        /// Whole seconds with URLSession on Linux (rounded up); with libcurl, a response's head,
        /// which it hands over a line at a time, may take up to five seconds more (libcurl's
        /// low-speed limit watches it). Default: 60 seconds.
        public var requestTimeout: Duration = .seconds(60)
        /// How long connecting to a server may take, apart from ``requestTimeout``; nil (the
        /// default) for the request timeout. The libcurl transport only: URLSession has no such
        /// setting, and a manager whose requests go over URLSession fails each request that
        /// would need it with ``DownloadError/Kind/invalidRequest`` instead of ignoring it.
        public var connectionTimeout: Duration?
        /// Which addresses of a host requests connect to. The libcurl transport only, as
        /// ``connectionTimeout``. Default: ``AddressFamily/any``.
        public var addressFamily = AddressFamily.any
        /// The proxy requests go through; nil (the default) for the platform's: on Linux the
        /// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` variables (libcurl reads
        /// them), on Apple platforms the system's settings. The libcurl transport honours every
        /// kind; URLSession on Linux honours none (swift-corelibs-foundation ignores its proxy
        /// settings), so a request fails there with ``DownloadError/Kind/invalidRequest`` instead
        /// of going out directly.
        public var proxy: Proxy?
        /// How many connections to one host may be open at once. Default: 6.
        public var maximumConnectionsPerHost = 6
        /// The most bytes per second all downloads of the manager may receive together; nil
        /// (the default) for no limit. Change it at run time with
        /// ``DownloadManager/setBandwidthLimit(_:)``; a download can have a limit of its own
        /// (``DownloadRequest/maximumBytesPerSecond``). On libcurl, downloads that share the limit
        /// take turns, each getting a fair share. Downloads of a background session are not limited
        /// (the system runs them).
        public var maximumBytesPerSecond: Int?
        /// How many connections one file may come over at once (a request can say otherwise:
        /// ``DownloadRequest/maximumConnections``). Many servers and CDNs limit the speed of each
        /// connection; several connections then add up. Each connection past the first takes a
        /// free slot of the scheduling limits (``Scheduling-swift.struct``) while the file
        /// downloads, and no more than ``maximumConnectionsPerHost`` are used. Default: 1.
        public var maximumConnectionsPerFile = 1
        /// The smallest part of a file worth a connection of its own, in bytes (see
        /// ``maximumConnectionsPerFile``). Default: 4 MiB.
        public var minimumSegmentSize: Int64 = 4 << 20
        /// Headers sent with every request, below the request's own headers.
        public var additionalHeaders: [String: String] = [:]
        /// The `User-Agent` of every request, unless ``additionalHeaders`` or the request's own
        /// headers give one: servers and CDNs treat a client without one as a bot. nil sends the
        /// platform's own (URLSession's, libcurl's none). Default: ``defaultUserAgent``.
        public var userAgent: String? = Self.defaultUserAgent
        /// `Downstream/<version>`.
        public static let defaultUserAgent = "Downstream/\(downstreamVersion)"
        /// Which library puts ranged requests on the wire. Default: ``TransportChoice/automatic``.
        public var transport = TransportChoice.automatic
        /// Which networks downloads may use, unless their request says otherwise
        /// (``DownloadRequest/networkAccess``): each setting that is nil allows its networks.
        /// Changed while downloads run with ``DownloadManager/setNetworkAccess(_:)``; not kept
        /// across launches, so give the app's setting (a "Wi-Fi only" switch) here at each launch.
        /// Default: every network.
        ///
        /// The system keeps requests off the networks forbidden (Apple platforms); where the
        /// manager's ``DownloadManager/Configuration-swift.struct/Connectivity-swift.struct/monitor``
        /// knows the kind of the network (the system's does on Apple platforms), a download does
        /// not start on a forbidden network, and a running one stops when a change forbids its
        /// network: it waits for an allowed one (``DownloadState/waitingForNetwork``) and continues
        /// from its bytes. A background session's own settings
        /// (``DownloadManager/Configuration-swift.struct/Background-swift.struct``) bound its
        /// downloads further.
        public var access = NetworkAccess()
        /// Whether requests may use cellular networks (Apple platforms): the same as
        /// ``access``'s ``NetworkAccess/allowsCellular`` (false when it is false). Default: true.
        public var allowsCellularAccess: Bool {
            get { access.allowsCellular != false }
            set { access.allowsCellular = newValue ? nil : false }
        }
        /// The most bytes one request asks for: a larger file comes in ranges of this size, one
        /// request after the other on the same connection. 0 asks for the whole file at once.
        /// Default: nil, automatic: ranges of 64 MiB on Linux's URLSession, one request on libcurl
        /// and on Apple platforms.
        ///
        /// Linux URLSession holds on to about 2% of what a request receives (some 340 bytes for
        /// each 16 KiB chunk) until the request ends, so one request for a multi-gigabyte file
        /// would grow the process by tens of megabytes; bounded ranges keep that small. Elsewhere
        /// one request is better: each range is a point where a server whose file changed between
        /// two requests could make a file of two versions (see <doc:OneFileOneVersion>).
        public var maximumBytesPerRequest: Int64?

        /// The most bytes one request asks for over `transport`; nil for the whole file at once.
        func maximumBytesPerRequest(on transport: any Transport) -> Int64? {
            guard let maximumBytesPerRequest else { return transport.needsBoundedRequests ? 64 << 20 : nil }
            return maximumBytesPerRequest > 0 ? maximumBytesPerRequest : nil
        }

        /// Default network settings.
        public init() {}
    }

    /// Where records and partial files go, and how often progress is saved.
    public struct Storage: Sendable {
        /// The directory of the manager's store: one record per download, which is how
        /// downloads survive a relaunch. When nil (the default), `Downstream/<identifier>` in the
        /// application-support directory (on Linux, `$XDG_DATA_HOME`, else `.local/share` in the
        /// home directory: `$HOME`, else the password database's home of the process's user). A
        /// Linux process with neither `HOME` nor an entry in the password database (a container's
        /// arbitrary uid) has no default place: give one here, or its manager fails to start with
        /// ``DownloadError/Kind/managerUnavailable``, which says to set `HOME`.
        public var directory: URL?
        /// A directory for the partial files. When nil (the default), a partial file lives beside
        /// its destination, as `<name>.partial`. The directory belongs to this manager: at launch,
        /// partial files there that none of its downloads knows are deleted.
        public var partialsDirectory: URL?
        /// Directories that may move between launches, by a name of your choosing: an app group's
        /// container, a folder the user picked. Records name the partial file and the destination
        /// relative to the deepest of these, of the store's directory and of the home directory
        /// (on Apple platforms, the app's container, which iOS moves when the app is updated; on
        /// Linux, `$HOME`, else the password database's home), so that a relaunch finds them
        /// where the directory is now; a path inside none of them is kept absolute. Give the same
        /// names at every launch: a record whose directory is not named is left in the store and
        /// reported in ``DownloadManager/restorationIssues``, as is a record relative to the home
        /// directory in a Linux process that has none (`HOME` unset, a uid without an entry in the
        /// password database), until a launch that has one. Default: none.
        public var relocatableDirectories: [String: URL] = [:]
        /// Whether managers of several processes may use the store at once, each with downloads
        /// of its own: command-line tools started side by side, worker processes. Default: false
        /// (a second process's manager of the store fails to start).
        ///
        /// A download's place (its destination file) belongs to one manager at a time: from its
        /// ``DownloadManager/download(_:startsPaused:)`` until it completes or is cancelled, or
        /// its manager goes. Another manager's download to the same place fails at once with
        /// ``DownloadError/Kind/destinationInUse``, which names the process, and touches nothing.
        /// A manager takes a stored download when asked for its place (by
        /// ``DownloadManager/download(_:startsPaused:)`` or
        /// ``DownloadManager/unfinishedDownload(to:)``), not at launch: its
        /// ``DownloadManager/downloads`` start empty, no interrupted download resumes by itself,
        /// and what a dead process left is repaired when a download of its place is asked for.
        /// Every manager of the store must share it. Not with a background session.
        public var isSharedByProcesses = false
        /// The home directory that records name files relative to; nil is the process's. For
        /// tests that move it.
        var homeDirectory: String?
        /// The data-protection class of partial files, records and the store on Apple platforms:
        /// one under which a background session can go on writing while the device is locked.
        /// A delivered file keeps it, unless its request asks for another
        /// (``DownloadRequest/fileProtection``). Default:
        /// ``FileProtection/completeUntilFirstUserAuthentication``.
        public var fileProtection = FileProtection.completeUntilFirstUserAuthentication
        /// Whether partial files, records and the store are left out of backups (iCloud, a
        /// computer), as Apple's storage guidelines ask of data that can be downloaded again. A
        /// delivered file is backed up. Default: true.
        public var excludesFromBackup = true
        /// Whether a delivered file takes the server's `Last-Modified` as its modification time,
        /// as wget gives it: a later ``Destination/ConflictPolicy/replaceIfChanged`` download (or
        /// any tool that compares times) then asks the server about its own time, not the time of
        /// the download. False keeps the time the file was written. Default: true.
        public var usesServerModificationTime = true
        /// What marks files for the system; nil is the system itself. For tests that record it.
        var fileMarking: (any FileMarking)?
        /// How often a running download saves how far it got.
        public var checkpoints = Checkpoints()
        /// Whether records, checkpoints and delivered files are forced to the disk (`fsync`), so
        /// that they also survive a power cut or a crash of the system, not only of the process.
        /// Costs a disk flush per record write and checkpoint. Default: false.
        public var synchronizesToDisk = false
        /// Slows every write to the partial file down to this rate, as a slow disk would. For
        /// tests and benchmarks of memory under backpressure.
        package var simulatedDiskBytesPerSecond: Int?
        /// Keeps every record in a file of its own, as versions before the journal did (see
        /// `DownloadStore`): the baseline of the store benchmark.
        package var keepsEveryRecordInAFile = false
        /// Called in the middle of every write to the store but a record file's first: between
        /// writing the two halves of a record file's slot, or of a frame of the journal. For
        /// tests that kill the process while a record is written.
        package var recordWriteObserver: (@Sendable () -> Void)?
        /// The most bytes gathered in memory before one write to a partial file. Default: 256 KiB.
        ///
        /// A smaller buffer puts the bytes received on the disk sooner, for a reader that follows a
        /// partial file while it grows (``Download/partialFileURL``): with 1, each chunk the
        /// transport delivers is written as it arrives, before the progress counts it. It costs a
        /// write per chunk (about 16 KiB) instead of one per buffer. Values below 1 count as 1.
        public var writeBufferCapacity = 256 * 1024

        /// Default storage settings.
        public init() {}
    }

    /// What happens to stored downloads when the manager starts.
    public struct Restoration: Sendable {
        /// Whether downloads that were running when the process ended resume at once. By default
        /// every restored download is paused until you resume it; downloads the user paused stay
        /// paused either way.
        public var resumesInterruptedDownloads = false

        /// Default restoration.
        public init() {}
    }

    /// How many downloads run at once; the others wait in the queue, by priority, then in the
    /// order they were queued. Change them at run time with
    /// ``DownloadManager/setLimits(maximumConcurrentDownloads:maximumConcurrentDownloadsPerHost:)``.
    public struct Scheduling: Sendable {
        /// Downloads running at once, in all. Default: 6. With 0, downloads wait in the queue
        /// until the limit is raised (running ones go back to it).
        public var maximumConcurrentDownloads = 6
        /// Downloads running at once from one host (host and port). Default: 4. 0 holds the
        /// queue, as for ``maximumConcurrentDownloads``.
        public var maximumConcurrentDownloadsPerHost = 4

        /// Default limits.
        public init() {}
    }

    /// How often progress is reported.
    public struct ProgressReporting: Sendable {
        /// The shortest time between two progress values of one download. Default: 50
        /// milliseconds (20 values per second). The last change of a burst comes at most a
        /// quarter interval after the interval ends, so that the timers of many downloads share
        /// one wake-up. When bytes stop coming (a stall), the value is published again every
        /// interval (at most four times a second) while its ``DownloadProgress/bytesPerSecond``
        /// falls, until it is 0 and ``DownloadProgress/estimatedTimeRemaining`` is nil, about two
        /// seconds after the last byte. An interval of zero publishes every change at once, and
        /// nothing without one (a stalled speed then stays as it was).
        public var interval: Duration = .milliseconds(50)

        /// Default progress settings.
        public init() {}
    }
}

extension DownloadManager.Configuration.Network {
    /// Which library puts a manager's ranged requests on the wire. (A background session's
    /// downloads always go through URLSession: the system runs them.)
    public struct TransportChoice: Sendable, Hashable {
        private enum Code: Sendable, Hashable {
            case automatic, urlSession
        }
        private let code: Code

        /// On Linux, libcurl called directly (the `libcurl.so.4` FoundationNetworking uses, loaded
        /// at run time): each chunk is written where it arrives, with no hop to a delegate queue.
        /// URLSession when libcurl cannot be loaded, and on Apple platforms. The environment
        /// variable `DOWNSTREAM_TRANSPORT=urlsession` makes it URLSession too.
        public static let automatic = TransportChoice(code: .automatic)
        /// URLSession, on every platform.
        public static let urlSession = TransportChoice(code: .urlSession)
    }
}
