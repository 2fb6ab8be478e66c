import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// What a manager makes of its configuration: its downloads' settings, its store's place, its
// transport and its queue's limits. (The public settings are in DownloadManager+Configuration.)

extension DownloadManager.Configuration {
    /// How the manager marks the files it writes (see ``FileMarker``).
    var fileMarker: FileMarker {
        FileMarker(
            marking: storage.fileMarking ?? SystemFileMarking(),
            own: FileMarks(excludedFromBackup: storage.excludesFromBackup, protection: storage.fileProtection))
    }

    /// The settings of the manager's downloads over `transport`.
    func makeDownloadSettings(transport: any Transport) -> Download.Settings {
        let readings = ClockReadings(clock)
        var checkpoints = storage.checkpoints
        checkpoints.clock = readings
        let engine = EngineSettings(
            transfer: RangedTransfer.Settings(
                writeBufferCapacity: storage.writeBufferCapacity, checkpoints: checkpoints,
                synchronizesToDisk: storage.synchronizesToDisk,
                disk: storage.simulatedDiskBytesPerSecond.map { DiskThrottle(bytesPerSecond: $0) },
                redirects: redirects, verifiesServerDigests: integrity.verifiesServerDigests,
                marker: fileMarker,
                limiter: BandwidthLimiter(
                    overall: network.maximumBytesPerSecond.flatMap { $0 > 0 ? $0 : nil }, clock: clock)),
            maximumBytesPerRequest: network.maximumBytesPerRequest(on: transport),
            overlapLength: max(0, resumption.overlapLength), retryPolicy: retry,
            networkMonitor: connectivity.monitor ?? ProbingNetworkMonitor.system(clock: clock), clock: clock,
            connectionsPerFile: max(1, network.maximumConnectionsPerFile),
            minimumSegmentSize: max(1, network.minimumSegmentSize),
            connectionsPerHost: max(1, network.maximumConnectionsPerHost),
            networkAccess: NetworkAccessPolicy(network.access))
        var settings = Download.Settings(
            progressInterval: progress.interval, engine: engine, authentication: authentication,
            urlRefresh: urlRefresh, maximumNetworkWait: connectivity.maximumWait,
            usesServerModificationTime: storage.usesServerModificationTime)
        settings.clockReadings = readings
        settings.headerProblem = HeaderField.problem(in: network.headers).map {
            "\($0) (the manager's network settings)"
        }
        return settings
    }

    /// The store directory: the configured one, else `Downstream/<identifier>` in the
    /// application-support directory (on Linux, the data directory: `$XDG_DATA_HOME`, else
    /// `.local/share` in the home directory).
    ///
    /// - Throws: ``DownloadError/Kind/managerUnavailable`` on Linux when the store has no place:
    ///   no directory is configured, `XDG_DATA_HOME` is not set, and the process has no home
    ///   directory (see ``HomeDirectory``).
    var storeDirectory: URL {
        get throws(DownloadError) {
            if let directory = storage.directory { return directory }
            #if os(Linux)
                let base = try Self.linuxDataDirectory(
                    environment: ProcessInfo.processInfo.environment, home: HomeDirectory.current)
            #else
                let base =
                    FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                    ?? FileManager.default.temporaryDirectory
            #endif
            // Separators become part of the name: identifiers must not collide or climb out.
            let name = FileName.sanitize(
                identifier.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\\", with: "_"))
            return base.appendingPathComponent("Downstream").appendingPathComponent(name)
        }
    }

    /// `$XDG_DATA_HOME` when it is an absolute path (as the XDG base directory specification
    /// requires), else `.local/share` in `home`, the home directory.
    ///
    /// - Throws: ``DownloadError/Kind/managerUnavailable`` when there is neither (`home` is nil).
    static func linuxDataDirectory(environment: [String: String], home: String?) throws(DownloadError) -> URL {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        guard let home else {
            throw .managerUnavailable(
                "its store has no default place: \(HomeDirectory.absence); set HOME (or XDG_DATA_HOME, or "
                    + "storage.directory)")
        }
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
    }

    func makeURLSessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        applySessionSettings(to: configuration)
        configuration.timeoutIntervalForRequest = max(1, network.requestTimeout.inSeconds.rounded(.up))
        // Every request carries the manager's network access (which may change while it runs)
        // under its own: the session allows every network.
        configuration.allowsCellularAccess = true
        return configuration
    }

    /// What every URLSession of the manager (the ranged engine's and the system session) takes
    /// from the configuration: no cache, the connections per host, the headers every request
    /// carries and the proxy.
    func applySessionSettings(to configuration: URLSessionConfiguration) {
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // No cookie jar: a server's Set-Cookie is neither kept (Foundation's shared storage
        // writes cookies to disk) nor sent to another download, or another server of the same
        // host; cookies a download needs are headers of its request (see the request adapter).
        // The libcurl transport keeps none either.
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpMaximumConnectionsPerHost = network.maximumConnectionsPerHost
        let headers = network.headers
        if !headers.isEmpty {
            configuration.httpAdditionalHeaders = headers
        }
        if let proxy = network.proxy {
            // Honoured on Apple platforms (swift-corelibs-foundation keeps it and ignores it).
            configuration.connectionProxyDictionary = proxy.connectionProxyDictionary
        }
    }
}

extension DownloadManager.Configuration.Network {
    /// The headers every request carries below its own: ``additionalHeaders``, and the
    /// ``userAgent`` unless they name one.
    var headers: [String: String] {
        var headers = additionalHeaders
        if let userAgent, !headers.keys.contains(where: { $0.lowercased() == "user-agent" }) {
            headers["User-Agent"] = userAgent
        }
        return headers
    }
}

extension DownloadManager.Configuration {
    /// Whether ``Network-swift.struct/TransportChoice/automatic`` asks for libcurl in this process:
    /// on Linux, unless `DOWNSTREAM_TRANSPORT=urlsession`.
    static var automaticMeansLibcurl: Bool {
        #if os(Linux)
            ProcessInfo.processInfo.environment["DOWNSTREAM_TRANSPORT"]?.lowercased() != "urlsession"
        #else
            false
        #endif
    }

    /// The transport of the ranged engine: libcurl when chosen (automatically) and loadable, else
    /// URLSession; with why libcurl was not used when it would have been. The settings only one
    /// transport uses are made for that one alone: libcurl's CA bundles are written only when
    /// libcurl is the transport (URLSession is given the trust rules as they are).
    ///
    /// - Parameter trustDirectory: where libcurl's CA bundles of the trust rules are written.
    /// - Throws: ``DownloadError/Kind/managerUnavailable`` when libcurl is the transport and the
    ///   trust rules cannot be made its options (an authority that cannot be read).
    func makeTransport(
        trustDirectory: URL
    ) throws(DownloadError) -> (transport: any Transport, fallbackReason: String?) {
        func urlSession() -> URLSessionTransport {
            URLSessionTransport(
                identifier: identifier, configuration: makeURLSessionConfiguration(),
                pendingCallbackLimit: pendingCallbackLimit, trust: trust)
        }
        #if os(Linux)
            guard network.transport == .automatic, Self.automaticMeansLibcurl else { return (urlSession(), nil) }
            if case .failure(let unavailable) = CurlLibrary.availability {
                return (urlSession(), "libcurl cannot be used: \(unavailable.reason)")
            }
            let curlTrust: CurlTrust
            do {
                curlTrust = try CurlTrust(
                    trust, directory: trustDirectory, environment: ProcessInfo.processInfo.environment)
            } catch {
                throw .managerUnavailable("its trust settings cannot be used: \(error.reason)")
            }
            let settings = CurlTransport.Settings(
                requestTimeout: network.requestTimeout, connectionTimeout: network.connectionTimeout,
                addressFamily: network.addressFamily, proxy: network.proxy, trust: curlTrust,
                maximumConnectionsPerHost: network.maximumConnectionsPerHost, additionalHeaders: network.headers)
            guard let curl = CurlTransport(name: identifier, settings: settings) else {
                return (urlSession(), "libcurl could not make a multi handle")
            }
            return (curl, nil)
        #else
            return (urlSession(), nil)
        #endif
    }
}

extension DownloadManager.Configuration {
    /// The limits the manager's queue applies: `overall` and `perHost`, and for a background
    /// manager no more downloads at once than the system's task budget
    /// (``Background-swift.struct/maximumSystemTasks``).
    func schedulerLimits(overall: Int, perHost: Int) -> Scheduler<Download.ID>.Limits {
        let budget = background.map { max(1, $0.maximumSystemTasks) } ?? .max
        return .init(overall: min(overall, budget), perHost: perHost)
    }

    /// The limits the queue starts with.
    var schedulerLimits: Scheduler<Download.ID>.Limits {
        schedulerLimits(
            overall: scheduling.maximumConcurrentDownloads, perHost: scheduling.maximumConcurrentDownloadsPerHost)
    }
}
