/// What a ``TestServer`` answers for one path.
///
/// Start from ``init(body:)`` and adjust the properties:
///
/// ```swift
/// var route = Route(body: .pattern(count: 1 << 20))
/// route.etag = "\"v1\""
/// route.faults = [.closeAfter(1000)]  // the first request breaks after 1000 bytes
/// server.setRoute("/file.bin", route)
/// ```
///
/// A `GET` or `HEAD` is conditional as RFC 9110 says, before its `Range` is looked at: one
/// whose `If-None-Match` is `*` or lists a tag that matches the current ``etag`` by weak
/// comparison, or, without `If-None-Match`, whose `If-Modified-Since` date is not earlier
/// than ``lastModified``, is answered `304 Not Modified` with `Date`, the validators that are
/// set (`ETag`, `Last-Modified`) and the ``extraHeaders``, and no body. A ``Fault/status(_:headers:)``,
/// an expired query, a missing ``requiredAuthorization`` or ``requiredDigest`` or a ``redirect``
/// answers first;
/// range faults are not reached, and byte-count faults act on an empty body.
public struct Route: Sendable {
    /// The entity served by this route.
    public var body: Body

    /// The exact `ETag` header value, for example `"\"v1\""` (strong) or `"W/\"v1\""` (weak);
    /// `nil` sends no `ETag` header. `If-None-Match` and `If-Range` compare with it (a tag
    /// without quotes matches nothing).
    public var etag: String?

    /// The exact `Last-Modified` header value (an HTTP-date); `nil` sends none.
    /// `If-Modified-Since` compares with it when both are dates in one of the three HTTP-date
    /// forms, and is ignored otherwise.
    public var lastModified: String?

    /// The `Content-Type` header value; `nil` sends none. Defaults to
    /// `application/octet-stream`.
    public var contentType: String?

    /// The `Content-Disposition` header value; `nil` sends none.
    public var contentDisposition: String?

    /// Further response headers, sent as given after the standard ones.
    public var extraHeaders: [String: String]

    /// Whether the route honours `Range` requests and advertises `Accept-Ranges: bytes`.
    /// When `false`, `Range` is ignored and every answer is a full `200`. Defaults to `true`.
    public var supportsRanges: Bool

    /// Whether the body is sent with `Transfer-Encoding: chunked` instead of a
    /// `Content-Length`. Defaults to `false`.
    public var chunked: Bool

    /// The size of each body write, and of each chunk in chunked mode. Defaults to 65536.
    public var writeSize: Int

    /// When set, body bytes are paced to about this many bytes per second.
    public var bytesPerSecond: Int?

    /// When set, the route answers with this redirect status and `Location` (sent exactly as
    /// given, so relative locations work) and an empty body, instead of the body.
    public var redirect: (status: Int, location: String)?

    /// When set, a request whose `Authorization` header is not exactly this value is answered
    /// `401` with `WWW-Authenticate: Basic realm="downstream"` and a short text body.
    public var requiredAuthorization: String?

    /// When set, a request without a valid HTTP Digest answer in its `Authorization` header
    /// (checked as ``DigestAuthentication`` says, on every request) is answered `401` with the
    /// Digest challenges, each with a new nonce, and a short text body. Checked after
    /// ``requiredAuthorization``. Defaults to `nil`.
    public var requiredDigest: DigestAuthentication?

    /// When `true`, the route answers as some CDNs do: `Range` alone is honoured, but a request
    /// that carries `If-Range` gets `200` and the whole body, even when its validator matches
    /// (and `ETag` and `Last-Modified` stay what they were). Defaults to `false`: `If-Range` is
    /// evaluated as RFC 9110 says.
    ///
    /// ```swift
    /// var route = Route(body: .pattern(count: 1 << 20))
    /// route.etag = "\"v1\""
    /// route.answersIfRangeInFull = true
    /// ```
    public var answersIfRangeInFull: Bool

    /// When `true`, the `ETag` differs for every request: it is `"<tag>-<n>"`, where `<tag>`
    /// is the opaque part of ``etag`` (or `v` when `etag` is `nil`) and `n` the route's
    /// request index. A weak ``etag`` keeps its `W/` prefix. Any `If-Range` therefore fails.
    public var etagChangesEveryRequest: Bool

    /// When set, the route's URLs expire as signed URLs do: the query string (what follows
    /// `?` in the request target, a signature such as `sig=1`) is good for this many body
    /// bytes in total, over all the requests that carry it.
    ///
    /// The response that reaches the budget announces its full length, sends the body up to
    /// the budget and then closes the connection cleanly (FIN), as ``Fault/closeAfter(_:)``
    /// does; one that ends exactly at the budget completes normally. Every later request with
    /// the same query, and every request without a query, is answered `403` with a short text
    /// body. Each query has a budget of its own; ``TestServer/setRoute(_:_:)`` renews them all.
    ///
    /// Bytes count as used once the server has written them to the socket. A response
    /// reserves the bytes it may send (up to a fault that ends it) when it starts, so that
    /// responses in progress at once never exceed the budget together, and gives back those
    /// it did not send (to a client that left early) when it ends, before it closes the
    /// connection. Faults apply as usual, a ``Fault/closeAfter(_:)`` or similar before the
    /// budget is reached too; ``Fault/status(_:headers:)`` answers before the budget is checked.
    /// Answers without the route's body (`HEAD`, redirects, `401`) use nothing.
    /// Defaults to `nil`: queries never expire.
    public var queryExpiresAfter: Int64?

    /// `faults[i]` applies to this route's `i`-th request (0-based) since it was set with
    /// ``TestServer/setRoute(_:_:)``; later requests behave normally.
    public var faults: [Fault]

    /// Creates a route that serves `body` with ranges supported and no faults.
    public init(body: Body) {
        self.body = body
        self.etag = nil
        self.lastModified = nil
        self.contentType = "application/octet-stream"
        self.contentDisposition = nil
        self.extraHeaders = [:]
        self.supportsRanges = true
        self.chunked = false
        self.writeSize = 65536
        self.bytesPerSecond = nil
        self.redirect = nil
        self.requiredAuthorization = nil
        self.requiredDigest = nil
        self.answersIfRangeInFull = false
        self.etagChangesEveryRequest = false
        self.queryExpiresAfter = nil
        self.faults = []
    }
}

extension Route {
    /// A route that answers every request with a redirect: `status` (`301`, `302`, `303`, `307`
    /// or `308`) and `location`, sent exactly as given (relative locations work), with an empty
    /// body.
    ///
    /// ```swift
    /// server.setRoute("/old.bin", .redirect(302, to: "/new.bin"))
    /// ```
    public static func redirect(_ status: Int, to location: String) -> Route {
        var route = Route(body: .pattern(count: 0))
        route.redirect = (status, location)
        return route
    }
}

extension Route {
    /// The fault for the route's request number `index`.
    func fault(forRequest index: Int) -> Fault {
        index >= 0 && index < faults.count ? faults[index] : .none
    }

    /// The `ETag` value to send for the route's request number `index`, if any.
    func currentETag(forRequest index: Int) -> String? {
        guard etagChangesEveryRequest else { return etag }
        var isWeak = false
        var opaque = "v"
        if let etag {
            var tag = Substring(etag)
            if tag.hasPrefix("W/") {
                isWeak = true
                tag = tag.dropFirst(2)
            }
            if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") {
                tag = tag.dropFirst().dropLast()
            }
            opaque = String(tag)
        }
        return (isWeak ? "W/" : "") + "\"\(opaque)-\(index)\""
    }
}
