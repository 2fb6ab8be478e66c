import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything needed to rebuild a download after the process ended, as kept in the store: one
/// file per download, rewritten atomically when it changes.
struct StoredDownload: Codable, Equatable, Sendable {
    static let currentVersion = 1

    /// What should become of the download.
    enum Intent: String, Codable, Sendable {
        /// Queued or running: resume it (if the configuration says so) after a relaunch.
        case active
        /// Paused by the user.
        case paused
        /// Stopped by an error; resumable.
        case failed
        /// Cancelled with its data kept for a later download of the same URL and destination.
        case kept
        /// Being cancelled: its partial file is to be deleted.
        case cancelled
    }

    var version = StoredDownload.currentVersion
    var id: DownloadID
    var request: Request
    var destination: StoredDestination
    var partialPath: String
    var intent: Intent
    /// What the ranged engine knows of the partial file.
    var resume: ResumeRecord
    /// Opaque resume data of a system download task, when one was used.
    var systemResumeData: Data?
    /// The ranged request of a system task that continues the partial file (see
    /// ``SystemHandoff``); nil when no such task runs.
    var handoff: SystemHandoff?
    /// The URLs the download takes its file from and the one in use, when they are no longer the
    /// request's URL and mirrors with the first in use (a fresh URL was given, or a mirror
    /// took over).
    var sources: SourceList?
    /// The download's last events (see ``DownloadHistory``); nil before its first request.
    var history: DownloadHistory?
    var created: Date

    /// The parts of a `DownloadRequest` that are stored.
    struct Request: Codable, Equatable, Sendable {
        var url: URL
        /// The request's own headers, but those that carry credentials (see
        /// ``LogText/isCredential(header:)``); `Range` and `If-Range` are the engine's and not
        /// stored.
        var headers: [String: String]
        var onServerFileChange: DownloadRequest.ServerFileChangePolicy.Code
        var priority: Int
        var metadata: [String: String]
        /// The expected digest as `algorithm:hex`.
        var expectedDigest: String?
        var onRejectedFile: DownloadRequest.RejectedFilePolicy.Code?
        var mirrors: [URL]?
        var maximumBytesPerSecond: Int?
        var maximumConnections: Int?
        var minimumSegmentSize: Int64?
        var fileProtection: FileProtection.Code?
        var networkAccess: StoredNetworkAccess?
        var earliestBeginDate: Date?
        var expectedByteCount: Int64?
        /// True when the request accepts a compressed body; nil when it does not.
        var acceptsCompressedBody: Bool?
        var maximumFileSize: Int64?
    }

    /// ``NetworkAccess``, stored only when a setting is not the session's.
    struct StoredNetworkAccess: Codable, Equatable, Sendable {
        var cellular: Bool?
        var expensive: Bool?
        var constrained: Bool?
    }

    struct StoredDestination: Codable, Hashable, Sendable {
        var isDirectory: Bool
        var path: String
        var conflictPolicy: Destination.ConflictPolicy.Code
        /// True when the file is placed through a file coordinator; nil when it is not.
        var isCoordinated: Bool? = nil

        /// The destination the record names.
        var value: Destination {
            let policy = Destination.ConflictPolicy(code: conflictPolicy)
            let target = URL(fileURLWithPath: path, isDirectory: isDirectory)
            var destination =
                isDirectory ? Destination.directory(target, ifExists: policy) : .file(target, ifExists: policy)
            destination.isCoordinated = isCoordinated == true
            return destination
        }
    }

    /// - Parameter destinationPath: `request.destination.path`, when the caller has it.
    init(
        id: DownloadID, request: DownloadRequest, url: URL, location: PartialLocation, destinationPath: String? = nil,
        created: Date = Date()
    ) {
        self.id = id
        self.request = Request(
            url: url, headers: Self.storedRequestHeaders(request.headerFields),
            onServerFileChange: request.onServerFileChange.code,
            priority: request.priority.value, metadata: request.metadata,
            expectedDigest: request.expectedDigest.map { "\($0.algorithm.code.rawValue):\($0.hexValue)" },
            onRejectedFile: request.onRejectedFile == .discard ? nil : request.onRejectedFile.code,
            mirrors: request.mirrors.isEmpty ? nil : request.mirrors,
            maximumBytesPerSecond: request.maximumBytesPerSecond, maximumConnections: request.maximumConnections,
            minimumSegmentSize: request.minimumSegmentSize, fileProtection: request.fileProtection?.code,
            networkAccess: request.networkAccess.isDefault
                ? nil
                : StoredNetworkAccess(
                    cellular: request.networkAccess.allowsCellular, expensive: request.networkAccess.allowsExpensive,
                    constrained: request.networkAccess.allowsConstrained),
            earliestBeginDate: request.earliestBeginDate, expectedByteCount: request.expectedByteCount,
            acceptsCompressedBody: request.acceptsCompressedBody ? true : nil, maximumFileSize: request.maximumFileSize)
        destination = StoredDestination(
            isDirectory: request.destination.fileURL == nil, path: destinationPath ?? request.destination.path,
            conflictPolicy: request.destination.conflictPolicy.code,
            isCoordinated: request.destination.isCoordinated ? true : nil)
        partialPath = location.path
        intent = .active
        // A partial file already there is of unknown origin: it is not continued.
        resume = .startingOver(url: url)
        self.created = created
    }

    /// The request as the app made it.
    var downloadRequest: DownloadRequest {
        downloadRequest(to: destination.value)
    }

    /// The request as the app made it, with `target`, the value of its ``destination`` (made once
    /// for the many records of a directory, when a store is restored).
    func downloadRequest(to target: Destination) -> DownloadRequest {
        // Only the URL's text unless there are headers: its `URL` and `URLRequest` are made when
        // asked for.
        var downloadRequest = DownloadRequest(
            urlText: request.url.absoluteString, to: target,
            onServerFileChange: .init(code: request.onServerFileChange),
            priority: .init(value: request.priority), metadata: request.metadata)
        if !request.headers.isEmpty {
            var urlRequest = URLRequest(url: request.url)
            for (name, value) in request.headers {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
            downloadRequest.urlRequest = urlRequest
        }
        if let stored = request.expectedDigest, let colon = stored.firstIndex(of: ":"),
            let code = Digest.Algorithm.Code(rawValue: String(stored[..<colon]))
        {
            downloadRequest.expectedDigest = Digest(
                Digest.Algorithm(code: code), hex: String(stored[stored.index(after: colon)...]))
        }
        // Only what is set: a request keeps its defaults in one shared box until one changes.
        if let code = request.onRejectedFile {
            downloadRequest.onRejectedFile = .init(code: code)
        }
        if let mirrors = request.mirrors {
            downloadRequest.mirrors = mirrors
        }
        if let limit = request.maximumBytesPerSecond {
            downloadRequest.maximumBytesPerSecond = limit
        }
        if let connections = request.maximumConnections {
            downloadRequest.maximumConnections = connections
        }
        if let size = request.minimumSegmentSize {
            downloadRequest.minimumSegmentSize = size
        }
        if let code = request.fileProtection {
            downloadRequest.fileProtection = FileProtection(code: code)
        }
        if let access = request.networkAccess {
            downloadRequest.networkAccess = NetworkAccess(
                allowsCellular: access.cellular, allowsExpensive: access.expensive,
                allowsConstrained: access.constrained)
        }
        if let date = request.earliestBeginDate {
            downloadRequest.earliestBeginDate = date
        }
        if let count = request.expectedByteCount {
            downloadRequest.expectedByteCount = count
        }
        if request.acceptsCompressedBody == true {
            downloadRequest.acceptsCompressedBody = true
        }
        if let size = request.maximumFileSize {
            downloadRequest.maximumFileSize = size
        }
        return downloadRequest
    }

    var location: PartialLocation {
        PartialLocation(path: partialPath)
    }
}

extension StoredDownload {
    /// A record of the current version made of its parts, with no system resume data or sources.
    init(
        id: DownloadID, request: Request, destination: StoredDestination, partialPath: String, intent: Intent,
        resume: ResumeRecord, created: Date
    ) {
        self.id = id
        self.request = request
        self.destination = destination
        self.partialPath = partialPath
        self.intent = intent
        self.resume = resume
        self.created = created
    }

    /// Forgets everything that would let the partial file (or the system's resume data) be
    /// continued: the next request starts from the first byte.
    mutating func startOver() {
        resume = .startingOver(url: request.url)
        systemResumeData = nil
        handoff = nil
    }
}

extension StoredDownload {
    /// The record with its paths as stored (see ``PathBases``) resolved against `bases`; nil when
    /// one names a base that is not one any more.
    func resolvingPaths(_ bases: PathBases) -> StoredDownload? {
        guard let partial = bases.resolved(partialPath), let destinationPath = bases.resolved(destination.path)
        else { return nil }
        var record = self
        record.partialPath = partial
        record.destination.path = destinationPath
        return record
    }

    /// The record as JSON, as `JSONEncoder` would write it (members in another order), fast.
    var json: Data { json(relativeTo: nil) }

    /// The record as JSON, with its paths relative to `bases` where they are inside one.
    func json(relativeTo bases: PathBases?) -> Data {
        Data(jsonBytes(relativeTo: bases))
    }

    /// The record as JSON bytes, with its paths relative to `bases` where they are inside one.
    func jsonBytes(relativeTo bases: PathBases?) -> [UInt8] {
        let store = { (path: String) in bases?.stored(path) ?? path }
        var writer = JSONWriter()
        writer.object { writer in
            writer.integer("version", version)
            writer.string("id", id.text)
            writer.object("request") { writer in
                writer.url("url", request.url)
                writer.dictionary("headers", request.headers)
                writer.string("onServerFileChange", request.onServerFileChange.rawValue)
                writer.integer("priority", request.priority)
                writer.dictionary("metadata", request.metadata)
                writer.string("expectedDigest", request.expectedDigest)
                writer.string("onRejectedFile", request.onRejectedFile?.rawValue)
                writer.urls("mirrors", request.mirrors)
                writer.integer("maximumBytesPerSecond", request.maximumBytesPerSecond)
                writer.integer("maximumConnections", request.maximumConnections)
                writer.integer("minimumSegmentSize", request.minimumSegmentSize)
                writer.string("fileProtection", request.fileProtection?.rawValue)
                if let access = request.networkAccess {
                    writer.object("networkAccess") { writer in
                        writer.bool("cellular", access.cellular)
                        writer.bool("expensive", access.expensive)
                        writer.bool("constrained", access.constrained)
                    }
                }
                writer.date("earliestBeginDate", request.earliestBeginDate)
                writer.integer("expectedByteCount", request.expectedByteCount)
                writer.bool("acceptsCompressedBody", request.acceptsCompressedBody)
                writer.integer("maximumFileSize", request.maximumFileSize)
            }
            writer.object("destination") { writer in
                writer.bool("isDirectory", destination.isDirectory)
                writer.string("path", store(destination.path))
                writer.string("conflictPolicy", destination.conflictPolicy.rawValue)
                writer.bool("isCoordinated", destination.isCoordinated)
            }
            writer.string("partialPath", store(partialPath))
            writer.string("intent", intent.rawValue)
            writer.object("resume") { writer in
                writer.url("url", resume.url)
                writer.object("validator") { writer in
                    writer.string("etag", resume.validator.etag)
                    writer.string("lastModified", resume.validator.lastModified)
                }
                writer.integer("expectedLength", resume.expectedLength)
                writer.integer("durableLength", resume.durableLength)
                writer.string("suggestedFileName", resume.suggestedFileName)
                writer.bool("isResumable", resume.isResumable)
                writer.string("digest", resume.digest?.serialized)
                writer.objects("segments", resume.segments) { writer, segment in
                    writer.integer("start", segment.start)
                    writer.integer("end", segment.end)
                    writer.integer("durable", segment.durable)
                }
                if let serverDigest = resume.serverDigest {
                    writer.object("serverDigest") { writer in
                        writer.string("algorithm", serverDigest.algorithm.rawValue)
                        writer.string("hex", serverDigest.hex)
                        writer.string("header", serverDigest.header)
                    }
                }
                if let response = resume.response.map(Self.storedResponse) {
                    writer.object("response") { writer in
                        writer.integer("statusCode", response.statusCode)
                        if let url = response.url {
                            writer.url("url", url)
                        }
                        writer.dictionary("headers", response.headers)
                    }
                }
            }
            writer.data("systemResumeData", systemResumeData)
            if let handoff {
                writer.object("handoff") { writer in
                    writer.integer("offset", handoff.offset)
                    writer.integer("overlap", handoff.overlap)
                    writer.object("validator") { writer in
                        writer.string("etag", handoff.validator.etag)
                        writer.string("lastModified", handoff.validator.lastModified)
                    }
                    writer.integer("expectedLength", handoff.expectedLength)
                }
            }
            if let sources {
                writer.object("sources") { writer in
                    writer.urls("urls", sources.urls)
                    writer.integer("index", sources.index)
                }
            }
            writer.objects("history", history?.entries) { writer, entry in entry.writeMembers(&writer) }
            writer.date("created", created)
        }
        return writer.bytes
    }
}
