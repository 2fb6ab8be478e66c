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

    /// The status line and headers, ending with the blank line.
    func headBytes() -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n"
        for (name, value) in headers {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The number of body bytes to send before the interruption (or all of them).
    var bytesBeforeInterruption: Int64 {
        let total = sendsBody ? Int64(bodyRange.count) : 0
        guard let interruption else { return total }
        return min(max(interruption.after, 0), total)
    }
}
