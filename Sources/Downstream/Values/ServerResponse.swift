import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The head of one response of the server: its status code, its headers and the URL that
/// answered. What the server said to one request, not how the download ended (that is
/// ``DownloadResponse``, which holds the last of these).
///
/// Validators get the last response whose body was written: a download that came in several
/// requests (resumed, or in ranges) shows its last one, usually `206 Partial Content` with a
/// `Content-Range`. It is kept with the download, so a download restored after a relaunch still
/// has it. Redirect, authentication and URL-refresh handlers get the response they decide about
/// (``Redirect/response``, ``AuthenticationChallenge/response``, ``RejectedURL/response``), and
/// event monitors every response (``DownloadEventMonitor/download(_:didReceive:)``).
public struct ServerResponse: Sendable, Hashable, Codable {
    /// The URL that answered, after redirects.
    public var url: URL?
    /// The HTTP status code.
    public var statusCode: Int
    /// The response's headers.
    public var headers: [String: String]

    /// A response head.
    public init(url: URL?, statusCode: Int, headers: [String: String]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    init(_ response: HTTPURLResponse) {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers[name] = value
            }
        }
        self.init(url: response.url, statusCode: response.statusCode, headers: headers)
    }

    /// The value of the header `name`, whatever its case.
    public func value(forHTTPHeaderField name: String) -> String? {
        if let value = headers[name] { return value }
        let lowercased = name.lowercased()
        return headers.first { $0.key.lowercased() == lowercased }?.value
    }

    /// The media type of the body (`Content-Type` without its parameters, lowercased), if given.
    public var mediaType: String? {
        guard let contentType = value(forHTTPHeaderField: "Content-Type") else { return nil }
        // Up to the first ";" scalar: a mark after it makes one character of both, which hid it.
        let type = String(contentType.unicodeScalars.prefix { $0 != ";" })
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }
}
