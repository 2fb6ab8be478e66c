import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP proxy on 127.0.0.1, for tests of code that downloads through one: `CONNECT host:port`
/// tunnels (HTTPS), and requests in absolute form (`GET http://127.0.0.1:8080/file`) forwarded to
/// their server, which must be on 127.0.0.1 too. Made with a required authorization, a request
/// without exactly that `Proxy-Authorization` is answered `407` with
/// `Proxy-Authenticate: Basic realm="proxy"`; made with a required Digest authentication, one
/// without a valid Digest answer in its `Proxy-Authorization` is answered `407` with the Digest
/// challenges (see ``DigestAuthentication``: the `uri` of a `CONNECT`'s answer is its
/// `host:port`, that of a request in absolute form its URL or its path and query).
///
/// Every request head it was sent is kept, in order (``requests``). Call ``shutdown()`` when the
/// test ends: the proxy stops listening and closes every connection.
public final class TestProxy: @unchecked Sendable {
    // Safe: `requests` and `verifier` are touched only under `lock`; the rest is immutable or
    // locks itself.
    /// A request the proxy was sent: its request line's method and target, and its
    /// `Proxy-Authorization`.
    public struct Request: Sendable, Equatable {
        public var method: String
        public var target: String
        public var proxyAuthorization: String?
    }

    /// The port it listens on.
    public let port: Int
    private let sockets: ConnectionSockets
    private let requiredAuthorization: String?
    private let requiredDigest: DigestAuthentication?
    private let lock = NSLock()
    private var _requests: [Request] = []
    private var verifier = DigestVerifier()

    /// Starts a proxy on a free port of 127.0.0.1.
    ///
    /// - Parameters:
    ///   - requiredAuthorization: the `Proxy-Authorization` value every request must have
    ///     (`"Basic dXNlcjpwdw=="`); nil for none.
    ///   - requiredDigest: the Digest authentication every request must answer in its
    ///     `Proxy-Authorization` (checked after `requiredAuthorization`); nil for none.
    public init(requiredAuthorization: String? = nil, requiredDigest: DigestAuthentication? = nil) throws {
        (sockets, port) = try ConnectionSockets.listening()
        self.requiredAuthorization = requiredAuthorization
        self.requiredDigest = requiredDigest
        sockets.accept { [self] client, _ in serve(client) }
    }

    /// The proxy's URL: `http://127.0.0.1:PORT`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The request heads received so far, in order.
    public var requests: [Request] {
        lock.withLock { _requests }
    }

    /// Stops listening and closes every connection.
    public func shutdown() {
        sockets.shutDown()
    }

    private func serve(_ client: Int32) {
        defer { sockets.close(client) }
        var buffered: [UInt8] = []
        while let head = readHead(client, &buffered) {
            let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            let parts = lines[0].split(separator: " ").map(String.init)
            guard parts.count == 3 else { return }
            let authorization = lines.dropFirst().first { $0.lowercased().hasPrefix("proxy-authorization:") }
                .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
            lock.withLock {
                _requests.append(Request(method: parts[0], target: parts[1], proxyAuthorization: authorization))
            }
            if let requiredAuthorization, authorization != requiredAuthorization {
                let answer =
                    "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\n"
                    + "Content-Length: 0\r\n\r\n"
                guard POSIXSocket.sendAll(client, Array(answer.utf8)) else { return }
                continue
            }
            if let requiredDigest, case .refused(let challenges) = checkDigest(parts, authorization, requiredDigest) {
                let fields = challenges.map { "Proxy-Authenticate: \($0)\r\n" }.joined()
                let answer = "HTTP/1.1 407 Proxy Authentication Required\r\n\(fields)Content-Length: 0\r\n\r\n"
                guard POSIXSocket.sendAll(client, Array(answer.utf8)) else { return }
                continue
            }
            let target =
                parts[0] == "CONNECT" ? parts[1] : URL(string: parts[1]).map { "\($0.host ?? ""):\($0.port ?? 80)" }
            guard let target, let port = Int(target.split(separator: ":").last ?? ""),
                target.hasPrefix("127.0.0.1:") || target.hasPrefix("localhost:"),
                let upstream = try? POSIXSocket.connectToLoopback(port: port), sockets.track(upstream)
            else {
                _ = POSIXSocket.sendAll(client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
                return
            }
            defer { sockets.close(upstream) }
            if parts[0] == "CONNECT" {
                guard POSIXSocket.sendAll(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else {
                    return
                }
            } else {
                // The request in origin form, the rest of its head as it came, and what followed it.
                let path =
                    URL(string: parts[1]).map { url in
                        (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?\($0)" } ?? "")
                    } ?? "/"
                let forwarded = ([parts[0] + " " + path + " " + parts[2]] + lines.dropFirst()).joined(separator: "\r\n")
                guard POSIXSocket.sendAll(upstream, Array((forwarded + "\r\n\r\n").utf8)) else { return }
            }
            if !buffered.isEmpty, !POSIXSocket.sendAll(upstream, buffered) { return }
            relay(client, upstream)
            return
        }
    }

    /// Checks the Digest answer of the request whose request line is `parts`.
    private func checkDigest(
        _ parts: [String], _ authorization: String?, _ settings: DigestAuthentication
    ) -> DigestVerifier.Verdict {
        var uris = [parts[1]]
        if parts[0] != "CONNECT", let url = URLComponents(string: parts[1]) {
            // Clients answer with the path and query, as the server gets them (libcurl, browsers).
            let path = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
            uris.append(path + (url.percentEncodedQuery.map { "?\($0)" } ?? ""))
        }
        return lock.withLock {
            verifier.check(method: parts[0], uris: uris, authorization: authorization, settings: settings)
        }
    }

    /// Reads a request head (up to the blank line) from `socket`; what came after it stays in
    /// `buffered`. Nil at the end of the stream.
    private func readHead(_ socket: Int32, _ buffered: inout [UInt8]) -> String? {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let range = buffered.firstRange(of: end) {
                let head = String(decoding: buffered[..<range.lowerBound], as: UTF8.self)
                buffered.removeSubrange(..<range.upperBound)
                return head
            }
            let count = chunk.withUnsafeMutableBytes { POSIXSocket.receive(socket, into: $0) }
            guard count > 0 else { return nil }
            buffered += chunk[..<count]
        }
    }

    /// Copies bytes both ways until either side ends.
    private func relay(_ client: Int32, _ upstream: Int32) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let events = POSIXSocket.poll([client, upstream], timeout: -1)
            for (index, (from, to)) in [(client, upstream), (upstream, client)].enumerated() where events[index] != 0 {
                let count = chunk.withUnsafeMutableBytes { POSIXSocket.receive(from, into: $0) }
                guard count > 0,
                    chunk.withUnsafeBytes({ POSIXSocket.sendAll(to, UnsafeRawBufferPointer(rebasing: $0[..<count])) })
                else { return }
            }
        }
    }
}
