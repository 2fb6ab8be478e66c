/// A misbehaviour that a ``Route`` injects into one of its responses.
///
/// `Route.faults[i]` applies to the route's `i`-th request (0-based); requests beyond the end
/// of the array get ``none``. Byte counts refer to body bytes of the response as sent (after
/// any range selection), never to header bytes. When a count exceeds the body length, the
/// whole body is sent first and the fault then takes effect.
public enum Fault: Sendable, Equatable {
    /// Answer normally.
    case none

    /// Send the headers (with the full `Content-Length`) and this many body bytes, then close
    /// the connection cleanly (FIN). In chunked mode the terminating chunk is never sent.
    case closeAfter(Int64)

    /// Send the headers and this many body bytes, then close abortively
    /// (`SO_LINGER` with a zero timeout), so the client sees a connection reset.
    case resetAfter(Int64)

    /// Send this many body bytes, then wait until ``TestServer/release(_:)`` is called for the
    /// request's path, the client disconnects or the server shuts down; then send the rest
    /// of the response normally if the client is still there.
    case holdAfter(Int64)

    /// Send this many body bytes, then send nothing more until the client disconnects or the
    /// server shuts down. Useful to make a client time out.
    case stallAfter(Int64)

    /// Answer this status code with a short `text/plain` body, ignoring the route's body,
    /// validators and redirect.
    case status(Int)

    /// Like ``status(_:)``, with these headers too (`Retry-After`, say).
    case statusWithHeaders(Int, [String: String])

    /// Answer `416 Range Not Satisfiable` with `Content-Range: bytes */<length>`, whatever
    /// was asked.
    case rangeNotSatisfiable

    /// Answer `206` claiming, and sending bytes from, this start offset instead of the one
    /// asked for. An open-ended request (`bytes=N-`, or none) gets the body up to its end; a
    /// bounded one gets as many bytes as it asked for (clipped to the body).
    case contentRangeStart(Int64)

    /// Answer `206` with the asked range (`bytes=0-` when none was asked) but claim this
    /// total length in `Content-Range`.
    case contentRangeTotal(Int64)

    /// Ignore any `Range` header for this request and answer `200` with the full body.
    case ignoreRange

    /// Answer normally, then send this many more bytes (`X`) after the body, as a server whose
    /// body is longer than its `Content-Length` does: they go out just before the answer to the
    /// next request on the connection, where the client reads them as that answer's start.
    case trailingBytes(Int)
}
