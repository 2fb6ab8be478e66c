/// Everything a connection needs to write one response, decided up front.
struct ResponsePlan {
    /// Where a byte-count fault cuts into the body.
    struct Interruption: Equatable {
        enum Kind: Equatable {
            /// Close cleanly (FIN).
            case close
            /// Close abortively (RST).
            case reset
            /// Wait for a release, then finish normally.
            case hold
            /// Wait for a release, then close cleanly (FIN).
            case holdThenClose
            /// Send nothing more; close once the client leaves or the server stops.
            case stall
        }

        /// The number of body bytes sent before the interruption takes effect.
        var after: Int64
        var kind: Kind
    }

    var status: Int
    /// Header fields in sending order.
    var headers: [(name: String, value: String)]
    /// The source of the body bytes.
    var body: Body
    /// The part of ``body`` to send; empty for no body.
    var bodyRange: Range<Int64>
    /// `false` for `HEAD` and for statuses without a body: the headers are all.
    var sendsBody: Bool
    var chunked: Bool
    var interruption: Interruption?
    var writeSize: Int
    var bytesPerSecond: Int?
    /// Whether the connection may carry another request once this response is complete.
    var keepAlive: Bool
    /// Bytes sent after the body, beyond what the headers announced.
    var trailingBytes = 0
    /// When set, the body bytes after which the connection closes cleanly although the headers
    /// announced more: where an expiring query's budget runs out (``Route/queryExpiresAfter``).
    /// Smaller than the body; an ``interruption`` at or before it still applies.
    var bodyLimit: Int64?
    /// The body bytes reserved from the request's expiring query: the most this response
    /// sends. 0 when the route's queries do not expire, or for answers without the route's body.
    var queryCharge: Int64 = 0
    /// A hostile head: header lines for ever, never its end.
    var endlessHead: EndlessHead?

    /// Header lines for ever: at full speed, or paced to about `bytesPerSecond`.
    struct EndlessHead {
        var bytesPerSecond: Int?
    }
    /// A chunk-size line no integer holds before the body (``Fault/hugeChunkSize``).
    var hugeChunkSize = false

    /// The status line and headers, ending with the blank line.
    func headBytes() -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n"
        for (name, value) in headers {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The number of body bytes to send if nothing interrupts: all of them, or up to
    /// ``bodyLimit``.
    var bytesToSend: Int64 {
        let total = sendsBody ? (bodyRange.upperBound - bodyRange.lowerBound) : 0
        guard let bodyLimit else { return total }
        return min(max(bodyLimit, 0), total)
    }

    /// The ``interruption``, unless ``bodyLimit`` ends the response before it is reached.
    var effectiveInterruption: Interruption? {
        guard let interruption else { return nil }
        if let bodyLimit, interruption.after > bodyLimit { return nil }
        return interruption
    }

    /// The number of body bytes to send before the interruption (or all of them).
    var bytesBeforeInterruption: Int64 {
        guard let interruption = effectiveInterruption else { return bytesToSend }
        return min(max(interruption.after, 0), bytesToSend)
    }

    /// The most body bytes the response sends: up to an interruption that ends it, or all it
    /// is to send.
    var mostBodyBytes: Int64 {
        guard let interruption = effectiveInterruption, interruption.kind != .hold else { return bytesToSend }
        return bytesBeforeInterruption
    }
}
