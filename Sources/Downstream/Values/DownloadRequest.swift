import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What to download and where to put it.
///
/// Carries a `URLRequest`, so the request's headers (authorisation, cookies, user agent) go with
/// every request the download sends, including the ranged ones that resume it. The request is
/// stored with the download (in a file only the user can read) so that the download survives a
/// relaunch, but for its credentials: `Authorization`, `Proxy-Authorization`, `Cookie` and
/// headers whose names say they carry a token, a secret, a password or an API key stay in
/// memory. A download restored after a relaunch gets them from
/// ``AuthenticationSettings/requestAdapter``, which is asked before every attempt.
///
/// ```swift
/// var urlRequest = URLRequest(url: url)
/// urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
/// let download = await manager.download(DownloadRequest(urlRequest, to: .directory(downloads)))
/// ```
public struct DownloadRequest: Sendable {
    /// The request to send. Downstream sets `Range`, `If-Range` and `Accept-Encoding` itself (see
    /// ``acceptsCompressedBody``).
    public var urlRequest: URLRequest {
        get { target.urlRequest }
        set { target = .request(newValue) }
    }
    /// The request, or only its URL (a `GET` without headers, as ``init(url:to:)`` makes), or
    /// only its URL's text (as a store restores it): its `URLRequest`, or its `URL`, is then made
    /// when asked for, and 100,000 restored downloads do not hold one each (160 and 270 bytes on
    /// Linux).
    private var target: Target
    /// Where the file goes.
    public var destination: Destination
    /// What to do when a resumed download finds that the server's file changed.
    public var onServerFileChange: ServerFileChangePolicy
    /// What happens when the manager already downloads the same URL to the same destination.
    /// Default: ``DuplicatePolicy/join``. (Beside the other one-byte setting: a request is
    /// copied into its download, and 100,000 downloads may be queued.)
    public var duplicates = DuplicatePolicy.join
    /// How urgent the download is.
    public var priority: Priority
    /// A small payload of your own (an identifier in your database, a title): kept with the
    /// download across relaunches and available as `download.request.metadata`.
    public var metadata: [String: String]
    /// The settings most requests leave as they are, behind one reference: a request is copied
    /// into its download, and 100,000 queued downloads should not carry a dozen empty fields each.
    private var tuning = Tuning.defaults

    /// The digest the file must have (as its publisher gives it), or nil to check only the digest
    /// the server gives, if it gives one.
    ///
    /// The file is hashed while it is written and the digest is compared before the file is
    /// delivered; a mismatch fails the download with ``DownloadError/Kind/integrityCheckFailed``
    /// and the destination is not touched. Without it, a digest of the whole file in the
    /// server's response (`Repr-Digest`, `x-goog-hash`, an S3 `ETag`…) is checked in the same
    /// way, unless the manager's configuration turns that off
    /// (``DownloadManager/Configuration-swift.struct/Integrity-swift.struct``).
    public var expectedDigest: Digest? {
        get { tuning.value.expectedDigest }
        set { tuning = tuning.changing { $0.expectedDigest = newValue } }
    }
    /// What happens to the downloaded bytes when the file is rejected: its digest does not match
    /// ``expectedDigest`` (or the server's), or a validator refuses it. Default: ``RejectedFilePolicy/discard``.
    public var onRejectedFile: RejectedFilePolicy {
        get { tuning.value.onRejectedFile }
        set { tuning = tuning.changing { $0.onRejectedFile = newValue } }
    }
    /// Checks the response and the complete file must pass before the file is delivered, in
    /// order (see ``ResponseCheck``). Given here, they run however soon the download ends. Default:
    /// none.
    public var checks: [ResponseCheck] {
        get { tuning.value.checks }
        set { tuning = tuning.changing { $0.checks = newValue } }
    }
    /// Other URLs of the same file, tried in order when the request's URL fails in a way its
    /// retries cannot mend (a status such as `404`, or a network failure after the last retry).
    ///
    /// The download continues from the bytes on disk on the next URL; because the file comes from
    /// another server, the bytes before the resume point are asked for again and compared with
    /// those on disk, and the length must be the same (see
    /// ``DownloadManager/Configuration/Resumption``). The request's headers go to every URL.
    /// When every URL failed, the download fails with ``DownloadError/Kind/allURLsFailed``.
    public var mirrors: [URL] {
        get { tuning.value.mirrors }
        set { tuning = tuning.changing { $0.mirrors = newValue } }
    }

    /// The most bytes per second this download may receive; nil (the default) or 0 for no limit of
    /// its own (the manager's, ``DownloadManager/Configuration/Network-swift.struct/maximumBytesPerSecond``,
    /// still applies). Change it while the download runs with ``Download/setBandwidthLimit(_:)``.
    public var maximumBytesPerSecond: Int? {
        get { tuning.value.maximumBytesPerSecond }
        set { tuning = tuning.changing { $0.maximumBytesPerSecond = newValue } }
    }

    /// How many connections this file may come over at once; nil (the default) takes the
    /// manager's ``DownloadManager/Configuration/Network-swift.struct/maximumConnectionsPerFile``.
    ///
    /// With more than one, the first request asks for the first ``minimumSegmentSize`` bytes; when
    /// the server answers it with a range, a validator that can guard ranges (`If-Range`) and the
    /// file's length, the rest is split into segments, one per connection, each written at its
    /// own place in the partial file. A connection that finishes its segment takes over half of
    /// the largest remaining one. Otherwise the file comes over one connection, silently.
    public var maximumConnections: Int? {
        get { tuning.value.maximumConnections }
        set { tuning = tuning.changing { $0.maximumConnections = newValue } }
    }

    /// The smallest segment worth a connection of its own, in bytes; nil (the default) takes the
    /// manager's ``DownloadManager/Configuration/Network-swift.struct/minimumSegmentSize``.
    public var minimumSegmentSize: Int64? {
        get { tuning.value.minimumSegmentSize }
        set { tuning = tuning.changing { $0.minimumSegmentSize = newValue } }
    }

    /// The data-protection class of the delivered file on Apple platforms; nil (the default)
    /// keeps the class of the partial file
    /// (``DownloadManager/Configuration-swift.struct/Storage-swift.struct/fileProtection``).
    /// The delivered file is backed up, unlike the partial file.
    public var fileProtection: FileProtection? {
        get { tuning.value.fileProtection }
        set { tuning = tuning.changing { $0.fileProtection = newValue } }
    }

    /// Which networks the download may use (Apple platforms' network policies); by default the
    /// session's. Kept across relaunches.
    public var networkAccess: NetworkAccess {
        get { tuning.value.networkAccess }
        set { tuning = tuning.changing { $0.networkAccess = newValue } }
    }

    /// Whether the server may send the body compressed (`gzip` or `deflate`), to be decoded as it
    /// arrives. Default: false.
    ///
    /// By default each request asks for the file as it is stored (`Accept-Encoding: identity`),
    /// and a response whose body is compressed anyway fails with
    /// ``DownloadError/Kind/unexpectedResponse`` before any byte is written: its bytes are not the
    /// file's bytes at the file's offsets, a body of 1 MB can decode to gigabytes, and it cannot
    /// be resumed. Set this to take such a body decoded: a request from the first byte then asks for
    /// `gzip, deflate`; the decoded bytes count against ``maximumFileSize`` and the disk's free
    /// space as they arrive (a body of unknown length stops before it leaves the disk less than
    /// 5 % of its size, at most 64 MiB, free); a pause starts the file again from its first byte.
    /// A coding other than gzip and deflate fails as before.
    public var acceptsCompressedBody: Bool {
        get { tuning.value.acceptsCompressedBody }
        set { tuning = tuning.changing { $0.acceptsCompressedBody = newValue } }
    }

    /// The most bytes the file may have; nil (the default) for no limit but the disk's.
    ///
    /// A response that announces a larger file fails with ``DownloadError/Kind/fileTooLarge``
    /// before any byte is written; a body that goes past the limit (one of unknown length, or a
    /// compressed one, see ``acceptsCompressedBody``) stops there, with nothing written past it,
    /// and its bytes are kept or deleted as ``onRejectedFile`` says.
    public var maximumFileSize: Int64? {
        get { tuning.value.maximumFileSize }
        set { tuning = tuning.changing { $0.maximumFileSize = newValue } }
    }

    /// For a background session's download: the earliest time the system may start it (its
    /// task's `earliestBeginDate`); nil (the default) as soon as the system sees fit. Only a new
    /// task waits for it: a download that continues with the system's resume data does not.
    public var earliestBeginDate: Date? {
        get { tuning.value.earliestBeginDate }
        set { tuning = tuning.changing { $0.earliestBeginDate = newValue } }
    }

    /// For a background session's download: about how many bytes it will receive (its task's
    /// `countOfBytesClientExpectsToReceive`), which the system uses to schedule it well; nil (the
    /// default) when unknown.
    public var expectedByteCount: Int64? {
        get { tuning.value.expectedByteCount }
        set { tuning = tuning.changing { $0.expectedByteCount = newValue } }
    }

    /// A request for `urlRequest`, saved at `destination`.
    public init(
        _ urlRequest: URLRequest, to destination: Destination,
        onServerFileChange: ServerFileChangePolicy = .restart, priority: Priority = .normal,
        metadata: [String: String] = [:]
    ) {
        self.init(
            .request(urlRequest), to: destination, onServerFileChange: onServerFileChange, priority: priority,
            metadata: metadata)
    }

    /// A `GET` request for `url`, saved at `destination`.
    public init(url: URL, to destination: Destination) {
        // A URL whose text parses again to an equal URL is kept as its text: an app that keeps
        // 100,000 queued downloads does not keep as many `URL`s (300 bytes each on Linux,
        // against a hundred for the text; a parse takes a quarter of a microsecond).
        let text = url.absoluteString
        self.init(url.baseURL == nil && URL(string: text) == url ? .urlText(text) : .url(url), to: destination)
    }

    /// A `GET` request without headers for the URL `urlText` spells, saved at `destination`, with
    /// the members a store keeps. The URL is parsed when asked for: `urlText` must be a URL's
    /// `absoluteString`.
    init(
        urlText: String, to destination: Destination, onServerFileChange: ServerFileChangePolicy,
        priority: Priority, metadata: [String: String]
    ) {
        self.init(
            .urlText(urlText), to: destination, onServerFileChange: onServerFileChange, priority: priority,
            metadata: metadata)
    }

    private init(
        _ target: Target, to destination: Destination, onServerFileChange: ServerFileChangePolicy = .restart,
        priority: Priority = .normal, metadata: [String: String] = [:]
    ) {
        self.target = target
        self.destination = destination
        self.onServerFileChange = onServerFileChange
        self.priority = priority
        self.metadata = metadata
    }

    /// The URL the download asks for.
    public var url: URL? { target.url }

    /// The request's header fields, without making its `URLRequest`.
    var headerFields: [String: String] {
        switch target {
        case .url, .urlText: [:]
        case .request(let request): request.allHTTPHeaderFields ?? [:]
        }
    }

    /// The request's method (`GET` unless it says otherwise), without making its `URLRequest`.
    var httpMethod: String {
        switch target {
        case .url, .urlText: "GET"
        case .request(let request): request.httpMethod?.uppercased() ?? "GET"
        }
    }

    private enum Target: Sendable {
        case url(URL)
        /// A URL's `absoluteString`, as a store keeps it.
        case urlText(String)
        case request(URLRequest)

        var urlRequest: URLRequest {
            switch self {
            case .url(let url): URLRequest(url: url)
            case .urlText: URLRequest(url: url!)
            case .request(let request): request
            }
        }

        var url: URL? {
            switch self {
            case .url(let url): url
            // The text of a URL that was parsed: it parses again, to an equal URL.
            case .urlText(let text): URL(string: text)
            case .request(let request): request.url
            }
        }
    }

    /// Why `url` cannot be downloaded, if it cannot: only HTTP and HTTPS URLs with a host can.
    static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "only http and https URLs can be downloaded, not \(LogText.url(url))"
        }
        guard url.host != nil else { return "the URL has no host: \(LogText.url(url))" }
        return nil
    }
}

extension DownloadRequest {
    /// What a resumed download does when the server's file is no longer the one it started with
    /// (its `ETag`, `Last-Modified` or length changed).
    public struct ServerFileChangePolicy: Sendable, Hashable {
        enum Code: String, Sendable, Codable {
            case restart, fail
        }

        let code: Code

        /// Discard the old bytes and download the new file from the beginning (the default).
        public static let restart = ServerFileChangePolicy(code: .restart)
        /// Fail with ``DownloadError/Kind/serverFileChanged``; the old bytes are kept until you
        /// cancel or resume (which starts over).
        public static let fail = ServerFileChangePolicy(code: .fail)
    }
}

extension DownloadRequest {
    /// What a request for a URL and destination that the manager already downloads does.
    public struct DuplicatePolicy: Sendable, Hashable {
        enum Code: Sendable, Hashable {
            case join, startSeparately
        }

        let code: Code

        /// Return the download under way (resumed if it was paused or failed): one transfer, one
        /// file. The default.
        public static let join = DuplicatePolicy(code: .join)
        /// Start another download, with a partial file of its own; at the end it follows the
        /// destination's conflict policy (a directory's unique name keeps both files).
        public static let startSeparately = DuplicatePolicy(code: .startSeparately)
    }
}

extension DownloadRequest {
    /// What becomes of a downloaded file that was rejected (a wrong digest, a failed validation).
    /// Either way the destination is not touched.
    public struct RejectedFilePolicy: Sendable, Hashable {
        enum Code: String, Sendable, Codable {
            case discard, keep
        }

        let code: Code

        /// Delete the bytes: resuming the download starts again from the first byte (the default).
        public static let discard = RejectedFilePolicy(code: .discard)
        /// Keep the bytes in the partial file (its path is the error's ``DownloadError/path``), to
        /// inspect them; resuming checks them again, or downloads what the server changed.
        public static let keep = RejectedFilePolicy(code: .keep)
    }
}

extension DownloadRequest {
    /// The box of the settings most requests leave as they are; never changed, replaced.
    fileprivate final class Tuning: Sendable {
        struct Values: Sendable {
            var expectedDigest: Digest?
            var onRejectedFile: RejectedFilePolicy = RejectedFilePolicy.discard
            var checks: [ResponseCheck] = []
            var mirrors: [URL] = []
            var maximumBytesPerSecond: Int?
            var maximumConnections: Int?
            var minimumSegmentSize: Int64?
            var fileProtection: FileProtection?
            var networkAccess: NetworkAccess = NetworkAccess()
            var earliestBeginDate: Date?
            var expectedByteCount: Int64?
            var acceptsCompressedBody = false
            var maximumFileSize: Int64?
        }

        static let defaults = Tuning(Values())
        let value: Values

        init(_ value: Values) {
            self.value = value
        }

        /// A new box holding the values changed by `change`.
        func changing(_ change: (inout Values) -> Void) -> Tuning {
            var values = value
            change(&values)
            return Tuning(values)
        }
    }
}
