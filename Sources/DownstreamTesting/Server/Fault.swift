/// A misbehaviour that a ``Route`` injects into one of its responses.
///
/// `Route.faults[i]` applies to the route's `i`-th request (0-based); requests beyond the end
/// of the array get ``none``. Byte counts refer to body bytes of the response as sent (after
/// any range selection), never to header bytes. When a count exceeds the body length, the
/// whole body is sent first and the fault then takes effect.
///
/// ```swift
/// var route = Route(body: .pattern(count: 1_000_000))
/// // The first request breaks after 300,000 bytes, the second is answered 503, the third works.
/// route.faults = [.resetAfter(300_000), .status(503, headers: ["Retry-After": "1"])]
/// ```
public struct Fault: Sendable, Equatable {
    enum Kind: Equatable {
        case none
        case closeAfter(Int64)
        case resetAfter(Int64)
        case holdAfter(Int64)
        case holdThenCloseAfter(Int64)
        case stallAfter(Int64)
        case status(Int, headers: [String: String])
        case rangeNotSatisfiable
        case contentRangeStart(Int64)
        case contentRangeTotal(Int64)
        case ignoreRange
        case trailingBytes(Int)
        case endlessHeaders(bytesPerSecond: Int?)
        case oversizedHeader(Int)
        case hugeChunkSize
    }

    let kind: Kind

    /// Answer normally.
    public static let none = Fault(kind: .none)

    /// Send the headers (with the full `Content-Length`) and this many body bytes, then close
    /// the connection cleanly (FIN), as a server that goes away does. In chunked mode the
    /// terminating chunk is never sent.
    public static func closeAfter(_ count: Int64) -> Fault {
        Fault(kind: .closeAfter(count))
    }

    /// Send the headers and this many body bytes, then close abortively
    /// (`SO_LINGER` with a zero timeout), so the client sees a connection reset. The reset waits
    /// until the client has acknowledged the bytes (at most 30 s): an abortive close discards
    /// whatever the kernel has not sent yet.
    public static func resetAfter(_ count: Int64) -> Fault {
        Fault(kind: .resetAfter(count))
    }

    /// Send this many body bytes, then wait until ``TestServer/release(_:)`` is called for the
    /// request's path, the client disconnects or the server shuts down; then send the rest
    /// of the response normally if the client is still there. For tests that act while a
    /// download is in the middle of its file (pause it, kill it).
    public static func holdAfter(_ count: Int64) -> Fault {
        Fault(kind: .holdAfter(count))
    }

    /// Send this many body bytes, then wait until ``TestServer/release(_:)`` is called for the
    /// request's path (or the client disconnects, or the server shuts down), then close the
    /// connection cleanly, as ``closeAfter(_:)`` does. For tests that must see what the client
    /// made of the bytes before the connection breaks (its output, its file), whatever the load.
    public static func holdThenCloseAfter(_ count: Int64) -> Fault {
        Fault(kind: .holdThenCloseAfter(count))
    }

    /// Send this many body bytes, then send nothing more until the client disconnects or the
    /// server shuts down. Useful to make a client time out.
    public static func stallAfter(_ count: Int64) -> Fault {
        Fault(kind: .stallAfter(count))
    }

    /// Answer this status code with a short `text/plain` body and `headers` (`Retry-After`,
    /// say), ignoring the route's body, validators and redirect.
    public static func status(_ code: Int, headers: [String: String] = [:]) -> Fault {
        Fault(kind: .status(code, headers: headers))
    }

    /// Answer `416 Range Not Satisfiable` with `Content-Range: bytes */<length>`, whatever
    /// was asked.
    public static let rangeNotSatisfiable = Fault(kind: .rangeNotSatisfiable)

    /// Answer `206` claiming, and sending bytes from, this start offset instead of the one
    /// asked for. An open-ended request (`bytes=N-`, or none) gets the body up to its end; a
    /// bounded one gets as many bytes as it asked for (clipped to the body).
    public static func contentRangeStart(_ start: Int64) -> Fault {
        Fault(kind: .contentRangeStart(start))
    }

    /// Answer `206` with the asked range (`bytes=0-` when none was asked) but claim this
    /// total length in `Content-Range`.
    public static func contentRangeTotal(_ total: Int64) -> Fault {
        Fault(kind: .contentRangeTotal(total))
    }

    /// Ignore any `Range` header for this request and answer `200` with the full body.
    public static let ignoreRange = Fault(kind: .ignoreRange)

    /// Answer normally, then send this many more bytes (`X`) after the body, as a server whose
    /// body is longer than its `Content-Length` does: they go out just before the answer to the
    /// next request on the connection, where the client reads them as that answer's start.
    public static func trailingBytes(_ count: Int) -> Fault {
        Fault(kind: .trailingBytes(count))
    }

    // MARK: Hostile servers
    //
    // What a server that means harm sends, for testing that a client bounds what it takes (a
    // compressed body that decodes to gigabytes is a body: ``Body/gzippedZeros(count:)``; a
    // redirect to a `Location` that is no URL is a route: ``Route/redirect(_:to:)`` sends it as
    // given).

    /// Send the status line and the route's headers, then header lines (`X-Endless-<n>: …`) for
    /// ever, never the blank line that ends the head: at full speed, or a trickle of about
    /// `bytesPerSecond`, which no timeout between two bytes catches. Ends when the client leaves
    /// or the server stops.
    public static func endlessHeaders(bytesPerSecond: Int? = nil) -> Fault {
        Fault(kind: .endlessHeaders(bytesPerSecond: bytesPerSecond))
    }

    /// Answer normally, with one more header whose value is `count` bytes long (`X-Oversized`).
    public static func oversizedHeader(_ count: Int) -> Fault {
        Fault(kind: .oversizedHeader(count))
    }

    /// Answer with `Transfer-Encoding: chunked` and a first chunk whose size line says 2^80 bytes
    /// (`100000000000000000000` in hexadecimal), then the body: a chunk size no integer holds.
    public static let hugeChunkSize = Fault(kind: .hugeChunkSize)
}
