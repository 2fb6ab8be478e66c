import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a manager's engines run requests: made once from its configuration.
struct EngineSettings: Sendable {
    /// What each ranged request (a single one, or a segment's) is given.
    var transfer: RangedTransfer.Settings
    /// The largest range one request asks for; nil for the whole file in one request.
    var maximumBytesPerRequest: Int64?
    /// Bytes before a resume point asked for again and compared.
    var overlapLength: Int
    /// When a failed request is tried again, by its download or its segment.
    var retryPolicy: RetryPolicy
    /// Whether there is a network for a request.
    var networkMonitor: any NetworkMonitor
    var clock: any Clock<Duration>
    /// How many connections one file may come over, unless its request says otherwise.
    var connectionsPerFile = 1
    var minimumSegmentSize: Int64 = 4 << 20
    /// The transport's limit of connections to one host: a file never uses more.
    var connectionsPerHost = 6
    /// The manager's network access, under each request's own.
    var networkAccess = NetworkAccessPolicy(NetworkAccess())

    /// What a failed request leads to (for an attempt and for a segment alike).
    var failureRecovery: FailureRecovery {
        FailureRecovery(retryPolicy: retryPolicy, networkMonitor: networkMonitor)
    }
}

/// What every attempt of one download acts on, and whom it tells: made by the download.
struct AttemptTarget: Sendable {
    var downloadID: DownloadID
    var request: DownloadRequest
    var location: PartialLocation
    var recordFile: DownloadRecordFile
    var settings: EngineSettings
    var progress: any ProgressSink
    var publish: @Sendable (DownloadEvent) -> Void
    /// Told of each request before it is sent, and of each response head.
    var willSend: @Sendable (URLRequest) -> Void
    var didReceive: @Sendable (ServerResponse) -> Void
    /// Asks the manager for up to that many connections past the download's own (each counts
    /// against its limits as a download does); returns how many it gave.
    var borrowConnections: @Sendable (Int) async -> Int
    /// Gives the borrowed connections back.
    var returnConnections: @Sendable () -> Void
    /// What the manager knows of the files it delivered (for a destination replaced only if the
    /// server's file changed).
    var deliveredCopies: DeliveredCopies? = nil
    /// The destination's paths, decoded once for the attempt (see ``DownloadEngines``); nil to
    /// decode them when needed.
    var destinationPaths: Destination.Paths? = nil
    /// Asks the app's request adapter for the headers of an attempt to the URL given; nil
    /// without one.
    var adaptHeaders: (@Sendable (URL) async -> Result<[String: String], DownloadError>)? = nil

    var partialPath: String { location.path }

    /// The destination's paths: the attempt's, else decoded now.
    var paths: Destination.Paths { destinationPaths ?? request.destination.paths }

    /// How many connections the file may come over, and the smallest segment worth one.
    var segmentation: (connections: Int, minimumSize: Int64) {
        let asked = request.maximumConnections ?? settings.connectionsPerFile
        let connections = max(1, min(asked, settings.connectionsPerHost))
        return (connections, max(1, request.minimumSegmentSize ?? settings.minimumSegmentSize))
    }

    /// Whether files are checked against the digests servers give.
    var verifiesServerDigests: Bool { settings.transfer.verifiesServerDigests }

    /// The request's request to `url`, with what every request of the engines carries: no cache,
    /// the headers the app's request adapter gave for the attempt (`adapted`), the credentials
    /// the authentication handler gave (made for this request), and the body asked for as it is
    /// stored (whatever `Accept-Encoding` the request had).
    func baseRequest(to url: URL, adapted: [String: String], credentials: RequestCredentials) -> URLRequest {
        var urlRequest = request.urlRequest
        urlRequest.url = url
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        settings.networkAccess.effective(for: request.networkAccess).apply(to: &urlRequest)
        for (name, value) in adapted {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        credentials.apply(to: &urlRequest)
        // Byte offsets must be the file's own: ask for the body as it is stored (a request from the
        // first byte may accept it compressed: see `AttemptPlan.acceptEncoding`).
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        return urlRequest
    }

    /// Makes sure the destination's and the partial file's directories are there.
    func preparePlaces() throws(DownloadError) {
        let paths = self.paths
        try FilePlacement.prepare(request.destination, paths: paths)
        let partialDirectory = location.path.parentPath
        if partialDirectory != paths.directory {
            try FilePlacement.createDirectory(atPath: partialDirectory)
        }
    }

    /// The algorithm the file is hashed with: the request's expected digest's, else the server's
    /// digest's in `record` (when server digests are checked).
    func digestAlgorithm(of record: ResumeRecord) -> Digest.Algorithm? {
        request.expectedDigest?.algorithm ?? (verifiesServerDigests ? record.serverDigest?.digest.algorithm : nil)
    }

    /// The digest an attempt continues while it writes the file from byte `length` on: of the
    /// request's expected digest (the saved one caught up from the disk, or one from the first
    /// byte), else of the server's digest in `record` when its saved state can go on (else none:
    /// the file is read at delivery). Forgets the server's digest when server digests are not
    /// checked. Reads the file: file work.
    func continuedDigest(of record: inout ResumeRecord, upTo length: Int64) throws(DownloadError) -> RunningDigest? {
        if !verifiesServerDigests {
            record.serverDigest = nil
        }
        if let expected = request.expectedDigest {
            // Saved at the last checkpoint: only the bytes written since are read again.
            return try RunningDigest.resuming(record.digest, expected.algorithm, fileAt: location.path, length: length)
        }
        guard let server = record.serverDigest?.digest, let saved = record.digest, saved.algorithm == server.algorithm,
            saved.length <= length
        else { return nil }
        return try RunningDigest.resuming(saved, server.algorithm, fileAt: location.path, length: length)
    }

    /// The bytes of the partial file that count, whatever the number of connections: the durable
    /// bytes of each segment, or the file's length.
    static func bytesOnDisk(_ record: ResumeRecord, partialPath: String) -> Int64 {
        EngineChoice.bytesOnDisk(record, fileLength: POSIXFile.length(atPath: partialPath) ?? 0)
    }
}
