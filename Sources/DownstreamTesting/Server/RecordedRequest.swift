/// A request as a ``TestServer`` received and answered it.
///
/// The copy held by the server is updated in place while the response body is written, so
/// ``bodyBytesSent`` read through ``TestServer/requests(_:)`` after a response ended is final.
public struct RecordedRequest: Sendable {
    /// The request's number on its path (0-based), counted since the path's route was last
    /// set with ``TestServer/setRoute(_:_:)``. Selects the entry of ``Route/faults``.
    public var index: Int

    /// The request method, for example `GET`.
    public var method: String

    /// The request path, without the query string.
    public var path: String

    /// The raw request target, including any query string.
    public var target: String

    /// The request headers, keys lowercased. Repeated headers are joined with `", "`.
    public var headers: [String: String]

    /// The start offset of a single-range `Range: bytes=N-` or `bytes=N-M` header.
    public var rangeStart: Int64?

    /// The inclusive end offset of a `Range: bytes=N-M` header.
    public var rangeEnd: Int64?

    /// The suffix length of a `Range: bytes=-S` header.
    public var rangeSuffixLength: Int64?

    /// The status code the server answered.
    public var status: Int

    /// The number of body bytes written so far for this response (final once it ended).
    public var bodyBytesSent: Int64

    /// The number of the connection that carried the request (0-based, in accept order),
    /// to observe keep-alive reuse.
    public var connection: Int

    /// The value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
