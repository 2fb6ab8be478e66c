import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One thing that happened to a download, as its history keeps it (see ``Download/history``): a
/// request and the range it asked for, an answer, a redirect, a retry, a new URL, a wait for the
/// network, a resume, a restart or the error it failed with.
///
/// An entry holds no secret: URLs are written as ``LogText/url(_:)`` writes them (no user
/// information, no token in the query), and no header but the range, its guard, and what the
/// answer says of the file (`Content-Range`, `Content-Length`, `ETag`, `Last-Modified`). Each text
/// is at most ``maximumTextBytes`` long.
///
/// ```swift
/// for entry in download.history {
///     print(entry.date, entry.kind, entry.statusCode ?? "", entry.range ?? "", entry.message ?? "")
/// }
/// ```
public struct DownloadHistoryEntry: Codable, Sendable, Hashable {
    /// What an entry tells of. A struct rather than an enum, so that kinds can be added.
    public struct Kind: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = DownloadHistoryEntry.capped(rawValue, to: 32)
        }

        /// A request went out: ``DownloadHistoryEntry/url``, ``DownloadHistoryEntry/range``,
        /// ``DownloadHistoryEntry/ifRange``.
        public static let request = Kind(rawValue: "request")
        /// An answer's head arrived: its status, URL, `Content-Range`, `Content-Length` and
        /// validators.
        public static let response = Kind(rawValue: "response")
        /// The server redirected the request (its status) to ``DownloadHistoryEntry/url``.
        public static let redirect = Kind(rawValue: "redirect")
        /// A transient error (``DownloadHistoryEntry/errorKind``, ``DownloadHistoryEntry/message``):
        /// the download tries again in ``DownloadHistoryEntry/retryDelay`` seconds.
        public static let retry = Kind(rawValue: "retry")
        /// The download waits for the network after an error.
        public static let waitingForNetwork = Kind(rawValue: "waitingForNetwork")
        /// The download takes its file from ``DownloadHistoryEntry/url`` now (a fresh URL, a mirror).
        public static let switchedURL = Kind(rawValue: "switchedURL")
        /// The server accepted a range: the bytes continue from ``DownloadHistoryEntry/offset``.
        public static let resumed = Kind(rawValue: "resumed")
        /// The bytes on disk were discarded: the file comes again from its first byte.
        public static let restarted = Kind(rawValue: "restarted")
        /// The download failed with the error of ``DownloadHistoryEntry/errorKind`` and
        /// ``DownloadHistoryEntry/message``.
        public static let failed = Kind(rawValue: "failed")

        public var description: String { rawValue }

        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// The longest text an entry keeps, in UTF-8 bytes: a longer one is cut and ends with `…`.
    public static let maximumTextBytes = 256

    /// When it happened.
    public var date: Date
    public var kind: Kind
    /// The URL asked for, answering, redirected to or switched to, without its secrets.
    public var url: String?
    /// The `Range` a request asked for (`bytes=N-`).
    public var range: String?
    /// The validator a request sent in `If-Range`.
    public var ifRange: String?
    /// The status of an answer or a redirect, or of the error.
    public var statusCode: Int?
    /// An answer's `Content-Range`.
    public var contentRange: String?
    /// An answer's `Content-Length`.
    public var contentLength: String?
    /// An answer's `ETag`.
    public var etag: String?
    /// An answer's `Last-Modified`.
    public var lastModified: String?
    /// Seconds until a retry.
    public var retryDelay: Double?
    /// The offset a resume continued from.
    public var offset: Int64?
    /// The error's ``DownloadError/kind``, for a retry, a wait for the network or a failure.
    public var errorKind: String?
    /// The error's ``DownloadError/reason``.
    public var message: String?

    /// An entry of `kind`, now; set the rest.
    public init(kind: Kind, date: Date = Date()) {
        self.kind = kind
        self.date = date
    }

    public init(from decoder: any Decoder) throws {
        // Read from a record, which could have been planted: every text is cut to its bound.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = { (key: CodingKeys) throws -> String? in
            try container.decodeIfPresent(String.self, forKey: key).map { Self.capped($0) }
        }
        date = try container.decode(Date.self, forKey: .date)
        kind = try container.decode(Kind.self, forKey: .kind)
        url = try text(.url)
        range = try text(.range)
        ifRange = try text(.ifRange)
        statusCode = try container.decodeIfPresent(Int.self, forKey: .statusCode)
        contentRange = try text(.contentRange)
        contentLength = try text(.contentLength)
        etag = try text(.etag)
        lastModified = try text(.lastModified)
        retryDelay = try container.decodeIfPresent(Double.self, forKey: .retryDelay)
        offset = try container.decodeIfPresent(Int64.self, forKey: .offset)
        errorKind = try text(.errorKind)
        message = try text(.message)
    }

    /// `text` cut to at most `bytes` UTF-8 bytes (on a character's boundary), ending with `…`
    /// when it was cut.
    static func capped(_ text: String, to bytes: Int = maximumTextBytes) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = ""
        var count = 0
        let ellipsis = "…"
        for character in text {
            let size = character.utf8.count
            guard count + size + ellipsis.utf8.count <= bytes else { break }
            kept.append(character)
            count += size
        }
        return kept + ellipsis
    }
}

extension DownloadHistoryEntry {
    /// A request about to go out.
    init(request: URLRequest) {
        self.init(kind: .request)
        url = request.url.map { Self.capped(LogText.url($0)) }
        range = request.value(forHTTPHeaderField: "Range").map { Self.capped($0) }
        ifRange = request.value(forHTTPHeaderField: "If-Range").map { Self.capped($0) }
    }

    /// An answer's head, or a redirect's (`kind`).
    init(response: ServerResponse, kind: Kind = .response, redirectedTo target: URL? = nil) {
        self.init(kind: kind)
        statusCode = response.statusCode
        url = (target ?? response.url).map { Self.capped(LogText.url($0)) }
        guard kind == .response else { return }
        let header = { (name: String) in response.value(forHTTPHeaderField: name).map { Self.capped($0) } }
        contentRange = header("Content-Range")
        contentLength = header("Content-Length")
        etag = header("ETag")
        lastModified = header("Last-Modified")
    }

    /// The entry of `event`, if it is one a history keeps.
    init?(event: DownloadEvent) {
        switch event.code {
        case .willRetry(let delay, let error):
            self.init(kind: .retry, error: error)
            retryDelay = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        case .waitingForNetwork(let error):
            self.init(kind: .waitingForNetwork, error: error)
        case .switchedURL(let url):
            self.init(kind: .switchedURL)
            self.url = Self.capped(LogText.url(url))
        case .resumed(let offset):
            self.init(kind: .resumed)
            self.offset = offset
        case .restarted:
            self.init(kind: .restarted)
        case .failed(let error):
            self.init(kind: .failed, error: error)
        default:
            return nil
        }
    }

    private init(kind: Kind, error: DownloadError) {
        self.init(kind: kind)
        errorKind = error.kind.description
        statusCode = error.statusCode
        message = Self.capped(error.reason)
    }
}
