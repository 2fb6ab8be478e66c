import Foundation

/// A response read by ``RawHTTPConnection``, including how its byte stream ended.
package struct RawHTTPResponse: Sendable {
    /// How reading a response, or a stream, ended.
    package enum Ending: Sendable, Equatable {
        /// The response was complete according to its framing.
        case complete
        /// The server closed the connection cleanly (FIN) before the framing was complete,
        /// or, for a stream read to its end, at the end.
        case closed
        /// The connection was reset (`ECONNRESET`).
        case reset
        /// Nothing arrived within the connection's timeout.
        case timedOut
        /// Another `recv` error, with its `errno`.
        case failed(Int32)
    }

    /// The status code.
    package var status: Int

    /// The headers, keys lowercased; repeated ones joined with `", "`.
    package var headers: [String: String]

    /// The body bytes received (de-chunked).
    package var body: Data

    /// The sizes of the chunks received, in order, including the final `0`, for a chunked
    /// response.
    package var chunkSizes: [Int]

    /// How the body ended.
    package var ending: Ending

    /// The value of the header `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
