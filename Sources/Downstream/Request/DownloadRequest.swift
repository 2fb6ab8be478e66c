import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What to download and where to put it.
///
/// Carries a `URLRequest`, so the request's headers (authorisation, cookies, user agent) go with
/// every request the download sends, including the ranged ones that resume it. The request is
/// stored with the download (headers included, in a file only the user can read) so that the
/// download survives a relaunch.
///
/// ```swift
/// var urlRequest = URLRequest(url: url)
/// urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
/// let download = await manager.download(DownloadRequest(urlRequest, to: .directory(downloads)))
/// ```
public struct DownloadRequest: Sendable {
    /// The request to send. Downstream sets `Range`, `If-Range` and `Accept-Encoding` itself.
    public var urlRequest: URLRequest
    /// Where the file goes.
    public var destination: Destination
    /// What to do when a resumed download finds that the server's file changed.
    public var onServerFileChange: ServerFileChangePolicy
    /// How urgent the download is.
    public var priority: Priority
    /// A small payload of your own (an identifier in your database, a title): kept with the
    /// download across relaunches and available as `download.request.metadata`.
    public var metadata: [String: String]
    /// What happens when the manager already downloads the same URL to the same destination.
    /// Default: ``DuplicatePolicy/join``.
    public var duplicates = DuplicatePolicy.join

    /// A request for `urlRequest`, saved at `destination`.
    public init(
        _ urlRequest: URLRequest, to destination: Destination,
        onServerFileChange: ServerFileChangePolicy = .restart, priority: Priority = .normal,
        metadata: [String: String] = [:]
    ) {
        self.urlRequest = urlRequest
        self.destination = destination
        self.onServerFileChange = onServerFileChange
        self.priority = priority
        self.metadata = metadata
    }

    /// A `GET` request for `url`, saved at `destination`.
    public init(url: URL, to destination: Destination) {
        self.init(URLRequest(url: url), to: destination)
    }

    /// The URL the download asks for.
    public var url: URL? { urlRequest.url }
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
