import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking HTTP/1.1 client over one raw TCP connection to `127.0.0.1`, for tests that
/// check framing, keep-alive and faults byte for byte.
///
/// Every read gives up after the timeout given to ``init(port:timeout:)``, so a broken
/// server fails a test instead of hanging it. Use an instance from one task at a time.
///
/// ```swift
/// let connection = try RawHTTPConnection(port: server.port)
/// try connection.sendRequest("/file", headers: ["Range": "bytes=10-"])
/// let response = try connection.readResponse()
/// #expect(response.status == 206 && response.ending == .complete)
/// ```
package final class RawHTTPConnection {
    /// The response head could not be read.
    package struct HeadError: Error, Equatable {
        /// How the stream ended before a full head arrived.
        package var ending: RawHTTPResponse.Ending
        /// The bytes received before that.
        package var received: Data
    }

    private var socket: Int32
    private var pending: [UInt8] = []
    private let port: Int

    /// Connects to `127.0.0.1:port`; each later read waits at most `timeout`.
    /// - Throws: `POSIXError` if the connection fails.
    package init(port: Int, timeout: Duration = .seconds(10)) throws {
        self.port = port
        socket = try POSIXSocket.connectToLoopback(port: port)
        let seconds = timeout.components.seconds
        let microseconds = timeout.components.attoseconds / 1_000_000_000_000
        // Clamped: a timeout past time_t's range (32 bits on watchOS) is as good as none.
        var value = timeval(tv_sec: .init(clamping: seconds), tv_usec: .init(clamping: microseconds))
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close()
    }

    /// Closes the connection (cleanly, with a FIN). Further reads report ``RawHTTPResponse/Ending/failed(_:)``.
    package func close() {
        guard socket >= 0 else { return }
        POSIXSocket.close(socket)
        socket = -1
    }

    /// Closes the sending side only (a FIN): the server reads the end of the stream, as when
    /// a client leaves, while what it still sends can be read.
    package func finishSending() {
        guard socket >= 0 else { return }
        POSIXSocket.shutdown(socket, reading: false)
    }

    /// Closes the connection abortively: the server sees a reset.
    package func reset() {
        guard socket >= 0 else { return }
        POSIXSocket.setResetOnClose(socket)
        close()
    }

    // MARK: Sending

    /// Sends `text` exactly as given.
    /// - Throws: `POSIXError` if the connection is gone.
    package func send(_ text: String) throws {
        guard POSIXSocket.sendAll(socket, Array(text.utf8)) else { throw POSIXError.current }
    }

    /// Sends a request for `target` with a `Host` header, then `headers` (sorted by name).
    package func sendRequest(_ target: String, method: String = "GET", headers: [String: String] = [:]) throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for name in headers.keys.sorted() {
            text += "\(name): \(headers[name]!)\r\n"
        }
        try send(text + "\r\n")
    }

    // MARK: Receiving

    /// Reads a whole response, framed by `Content-Length`, chunked encoding, or the end of
    /// the stream. `method` tells whether a body follows (`HEAD` has none).
    /// - Throws: ``HeadError`` if the status line and headers do not arrive.
    package func readResponse(method: String = "GET") throws -> RawHTTPResponse {
        var response = try readHead()
        let status = response.status
        if method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 {
            response.ending = .complete
        } else if response.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            readChunkedBody(into: &response)
        } else if let length = response.header("content-length").flatMap({ Int($0) }) {
            let (data, ending) = read(count: length)
            response.body = data
            response.ending = ending ?? .complete
        } else {
            let (data, ending) = readToEnd()
            response.body = data
            response.ending = ending == .closed ? .complete : ending
        }
        return response
    }

    /// Reads the status line and headers only, leaving the body unread.
    /// - Throws: ``HeadError`` if they do not arrive.
    package func readHead() throws -> RawHTTPResponse {
        var searchFrom = 0
        while true {
            if let end = HTTPRequestParser.headEnd(in: pending, searchingFrom: searchFrom) {
                let text = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeFirst(end)
                return Self.parseHead(text)
            }
            searchFrom = max(0, pending.count - 3)
            if let ending = receiveMore() {
                throw HeadError(ending: ending, received: Data(pending))
            }
        }
    }

    /// Reads exactly `count` bytes, or fewer when the stream ends first.
    /// - Returns: The bytes, and how the stream ended if it did before `count` bytes.
    package func read(count: Int) -> (data: Data, ending: RawHTTPResponse.Ending?) {
        while pending.count < count {
            if let ending = receiveMore() {
                let data = Data(pending)
                pending.removeAll()
                return (data, ending)
            }
        }
        let data = Data(pending[0..<count])
        pending.removeFirst(count)
        return (data, nil)
    }

    /// Reads until the stream ends, returning the bytes and how it ended
    /// (``RawHTTPResponse/Ending/closed`` for a clean end).
    package func readToEnd() -> (data: Data, ending: RawHTTPResponse.Ending) {
        while true {
            if let ending = receiveMore() {
                let data = Data(pending)
                pending.removeAll()
                return (data, ending)
            }
        }
    }

    /// Whether no byte arrives (and the stream does not end) within `duration`; bytes that
    /// do arrive stay buffered for later reads. For checking that a server holds back.
    package func isQuiet(for duration: Duration) -> Bool {
        guard pending.isEmpty else { return false }
        let events = POSIXSocket.poll([socket], timeout: duration.pollTimeout)
        return events[0] == 0
    }

    // MARK: Internals

    /// Receives more bytes into `pending`; returns how the stream ended, or `nil` if bytes came.
    private func receiveMore() -> RawHTTPResponse.Ending? {
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        let count = block.withUnsafeMutableBytes { POSIXSocket.receive(socket, into: $0) }
        if count > 0 {
            pending.append(contentsOf: block[0..<count])
            return nil
        }
        if count == 0 { return .closed }
        switch errno {
        case ECONNRESET: return .reset
        case EAGAIN, EWOULDBLOCK: return .timedOut
        case let code: return .failed(code)
        }
    }

    private func readChunkedBody(into response: inout RawHTTPResponse) {
        while true {
            guard let line = readLine(into: &response) else { return }
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingHTTPWhitespace(), radix: 16) else {
                response.ending = .failed(EPROTO)
                return
            }
            response.chunkSizes.append(size)
            if size == 0 {
                while let trailer = readLine(into: &response) {  // trailers, then a blank line
                    if trailer.isEmpty {
                        response.ending = .complete
                        return
                    }
                }
                return
            }
            let (data, ending) = read(count: size)
            response.body.append(data)
            if let ending {
                response.ending = ending
                return
            }
            guard let terminator = readLine(into: &response), terminator.isEmpty else {
                if response.ending == .complete { response.ending = .failed(EPROTO) }
                return
            }
        }
    }

    /// Reads a CRLF-terminated line; on a stream end sets the response's ending, `nil`.
    private func readLine(into response: inout RawHTTPResponse) -> String? {
        while true {
            if let index = pending.indices.dropLast().first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 }) {
                let line = String(decoding: pending[0..<index], as: UTF8.self)
                pending.removeFirst(index + 2)
                return line
            }
            if let ending = receiveMore() {
                response.ending = ending
                return nil
            }
        }
    }

    private static func parseHead(_ text: String) -> RawHTTPResponse {
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true)[...]
        let statusLine = lines.popFirst() ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        let status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].trimmingHTTPWhitespace())
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return RawHTTPResponse(status: status, headers: headers, body: Data(), chunkSizes: [], ending: .complete)
    }
}
