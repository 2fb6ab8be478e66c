import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The parts of an HTTP response head that decide what happens to the body.
struct ResponseHead: Equatable, Sendable {
    var status: Int
    var contentRange: ContentRange?
    var hasContentRange: Bool
    var contentLength: Int64?
    var validator: Validator
    var contentEncoding: String?
    var contentDisposition: String?
    var url: URL?
    /// The server's `Retry-After`, as a delay from now.
    var retryAfter: Duration?
    /// The digests of the whole file the response gives, strongest first (see
    /// ``ServerDigest/offered(status:fields:isWholeFile:)``).
    var serverDigests: [ServerDigest] = []

    init(
        status: Int, contentRange: String? = nil, contentLength: Int64? = nil, validator: Validator = Validator(),
        contentEncoding: String? = nil, contentDisposition: String? = nil, url: URL? = nil
    ) {
        self.status = status
        self.hasContentRange = contentRange != nil
        self.contentRange = contentRange.flatMap(ContentRange.init)
        self.contentLength = contentLength
        self.validator = validator
        self.contentEncoding = contentEncoding
        self.contentDisposition = contentDisposition
        self.url = url
    }

    /// The parts of `response` the decision reads.
    init(_ response: ServerResponse) {
        // Header names are case-insensitive, and re-cased on Linux: one pass lowercases them.
        var fields: [String: String] = [:]
        for (name, value) in response.headers {
            fields[name.lowercased()] = value
        }
        self.init(
            status: response.statusCode,
            contentRange: fields["content-range"],
            // A length is never negative: `-1` says nothing (RFC 9110 allows digits only).
            contentLength: fields["content-length"].flatMap { Int64($0.trimmingWhitespace) }.flatMap {
                $0 >= 0 ? $0 : nil
            },
            validator: Validator(etag: fields["etag"], lastModified: fields["last-modified"]),
            contentEncoding: fields["content-encoding"],
            contentDisposition: fields["content-disposition"],
            url: response.url)
        retryAfter = fields["retry-after"].flatMap { Self.parseRetryAfter($0, now: Date()) }
        serverDigests = ServerDigest.offered(
            status: response.statusCode, fields: fields, isWholeFile: contentRange?.isWholeFile == true)
    }

    /// The `Location` of a redirect `response` that is not a URL (its first 200 characters), if
    /// it has one: the transport could not follow it, and the answer is no file.
    static func unreadableLocation(of response: ServerResponse) -> String? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.value(forHTTPHeaderField: "Location"),
            URL(string: location, relativeTo: response.url) == nil
        else { return nil }
        return String(location.prefix(200))
    }

    /// `Retry-After` is delay-seconds or an HTTP-date (RFC 9110, section 10.2.3).
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = String(value.trimmingWhitespace)
        if let seconds = Int(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now).rounded(.up)))
    }

    /// Whether the body is transformed (compressed): its bytes are not the file's bytes at the
    /// server's offsets, so it cannot be resumed with a range.
    var isEncoded: Bool {
        guard let contentEncoding else { return false }
        let coding = contentEncoding.trimmingWhitespace.lowercased()
        return !(coding.isEmpty || coding == "identity")
    }

    /// Why the body's coding cannot be taken by a request that accepts compressed bodies or not
    /// (`acceptsCompression`), if it cannot: every transport decodes gzip and deflate (URLSession
    /// by itself, libcurl's through `CurlBodyDecoder`), and only those.
    func codingRefusal(acceptsCompression: Bool) -> String? {
        guard isEncoded, let contentEncoding else { return nil }
        let coding = contentEncoding.trimmingWhitespace.lowercased()
        guard acceptsCompression else {
            return "the server sent the body compressed (Content-Encoding: \(contentEncoding)), which the request "
                + "did not accept (DownloadRequest.acceptsCompressedBody)"
        }
        guard AttemptPlan.decodedCodings.contains(coding) else {
            return "the server sent the body as Content-Encoding \(contentEncoding); Downstream decodes only "
                + AttemptPlan.acceptedEncodings
        }
        return nil
    }
}
