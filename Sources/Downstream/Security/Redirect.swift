import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A redirect a download's request is about to follow, as your redirect handler sees it (see
/// ``RedirectSettings/handler``).
public struct Redirect: Sendable {
    /// The download whose request is redirected.
    public var downloadID: DownloadID
    /// The URL the download asked for.
    public var originalURL: URL
    /// The server's redirect response (`301`, `302`, `303`, `307` or `308`).
    public var response: ServerResponse
    /// The request that follows the redirect, as Downstream would send it: credentials already
    /// dropped if it leaves the original origin.
    public var request: URLRequest
    /// How many redirects this request followed before this one.
    public var previousCount: Int

    /// What to do with a redirect.
    public struct Decision: Sendable {
        enum Code: Sendable {
            case follow(URLRequest?)
            case refuse(String)
        }

        let code: Code

        /// Follow the redirect with ``Redirect/request``.
        public static let follow = Decision(code: .follow(nil))
        /// Follow the redirect with another request (other headers, another URL). Downstream
        /// keeps its own `Range`, `If-Range` and `Accept-Encoding` headers.
        public static func follow(_ request: URLRequest) -> Decision { Decision(code: .follow(request)) }
        /// Refuse the redirect: the download fails with ``DownloadError/Kind/redirectRefused``
        /// and `reason`.
        public static func refuse(_ reason: String) -> Decision { Decision(code: .refuse(reason)) }
    }
}

/// The checks every redirect passes before it is followed.
enum RedirectPolicy {
    /// The request to follow `proposed` with, or why not.
    ///
    /// - Parameters:
    ///   - current: the URL that answered with the redirect.
    ///   - original: the URL the download asked for.
    ///   - previousCount: how many redirects the request followed before.
    static func check(
        _ proposed: URLRequest, from current: URL?, original: URL, previousCount: Int,
        settings: RedirectSettings
    ) -> Result<URLRequest, DownloadError> {
        guard previousCount < settings.maximumCount else {
            return .failure(.redirectRefused("more than \(settings.maximumCount) redirects"))
        }
        guard let target = proposed.url, let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else {
            return .failure(.redirectRefused("a redirect to \(proposed.url.map(LogText.url) ?? "nothing") is not HTTP"))
        }
        let wasSecure = current?.scheme?.lowercased() == "https" || original.scheme?.lowercased() == "https"
        if wasSecure, scheme == "http", !settings.allowsInsecureDowngrade {
            return .failure(
                .redirectRefused("a redirect from HTTPS to HTTP (\(LogText.url(target))) would expose the download"))
        }
        var request = proposed
        if Origin(original) != Origin(target) {
            let dropped = Set(settings.credentialHeaders.map { $0.lowercased() })
            for name in (request.allHTTPHeaderFields ?? [:]).keys where dropped.contains(name.lowercased()) {
                request.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return .success(request)
    }

    /// A URL's origin (RFC 6454): scheme, host and port, the port defaulted by the scheme.
    struct Origin: Equatable {
        var scheme: String?
        var host: String?
        var port: Int?

        init(_ url: URL) {
            scheme = url.scheme?.lowercased()
            host = url.host?.lowercased()
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
    }
}
