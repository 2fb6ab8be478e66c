/// The request line and headers of one HTTP/1.x request.
struct HTTPRequestHead: Sendable, Equatable {
    /// The method, for example `GET`.
    var method: String
    /// The raw request target, including any query.
    var target: String
    /// The target's path, without query or fragment.
    var path: String
    /// The minor version of HTTP/1.x.
    var minorVersion: Int
    /// Header fields with lowercased names; repeated fields are joined with `", "`.
    var headers: [String: String]

    /// The value of the header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The target's query, what follows its `?` up to any `#`; `nil` when there is none or it
    /// is empty.
    var query: String? {
        HTTPRequestParser.query(of: target)
    }

    /// The declared request body length (0 when absent).
    var contentLength: Int64 {
        header("content-length").flatMap { Int64(digits: $0.trimmingHTTPWhitespace()) } ?? 0
    }

    /// Whether the client wants the connection kept open after the response: HTTP/1.1
    /// without `Connection: close`, and no request body framing this server cannot skip.
    var wantsKeepAlive: Bool {
        guard minorVersion >= 1, header("transfer-encoding") == nil else { return false }
        let tokens = (header("connection") ?? "").lowercased().split(separator: ",")
        return !tokens.contains { $0.trimmingHTTPWhitespace() == "close" }
    }
}
