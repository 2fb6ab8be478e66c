import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP proxy on 127.0.0.1 that gives a server on the same machine a network's round-trip time:
/// every byte is held back half of ``roundTripTime`` in each direction, and a new connection's
/// first bytes from the client one round trip more (the TCP handshake that loopback does not
/// have). It relays bytes, not HTTP: plain HTTP and TLS alike. Byte order is kept and bandwidth
/// is not limited: what arrives is read at once and sent when it is due.
///
/// It also keeps the times it saw bytes at (``takeTimeline()``): when a client's bytes arrived,
/// and when bytes were delivered to it, connection by connection. Call ``shutdown()`` when done:
/// the proxy stops listening and closes every connection.
public final class DelayingProxy: @unchecked Sendable {
    // Safe: `log` and `lastDelivery` are touched only under `lock`; the rest is immutable or locks
    // itself.
    /// The port it listens on.
    public let port: Int
    /// The port of the server on 127.0.0.1 it forwards to.
    public let upstreamPort: Int
    /// The round-trip time it adds.
    public let roundTripTime: Duration
    private let sockets: ConnectionSockets
    private let lock = NSLock()
    private var log = Timeline()
    /// Per open connection, when the proxy last delivered bytes to its client, if it did since the
    /// client's last bytes.
    private var lastDelivery: [Int: ContinuousClock.Instant] = [:]

    /// Starts a proxy on a free port of 127.0.0.1 in front of 127.0.0.1:`upstreamPort`.
    public init(upstreamPort: Int, roundTripTime: Duration) throws {
        (sockets, port) = try ConnectionSockets.listening()
        self.upstreamPort = upstreamPort
        self.roundTripTime = roundTripTime
        sockets.accept { [self] client, number in serve(client, number: number) }
    }

    /// Stops listening and closes every connection.
    public func shutdown() {
        sockets.shutDown()
    }

    /// What the proxy saw since it started or since the last call, and starts a new timeline.
    public func takeTimeline() -> Timeline {
        lock.withLock {
            defer { log = Timeline() }
            return log
        }
    }

    private func serve(_ client: Int32, number: Int) {
        guard let upstream = try? POSIXSocket.connectToLoopback(port: upstreamPort), sockets.track(upstream) else {
            sockets.close(client)
            return
        }
        POSIXSocket.setNoDelay(client)
        POSIXSocket.setNoDelay(upstream)
        lock.withLock { log.connections += 1 }
        let towardClientEnded = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            DelayLine(from: upstream, to: client, delay: roundTripTime / 2, firstDelay: roundTripTime / 2) {
                if $0 == .delivered { self.delivered(on: number) }
            }.run()
            towardClientEnded.signal()
        }
        DelayLine(from: client, to: upstream, delay: roundTripTime / 2, firstDelay: roundTripTime * 3 / 2) {
            if $0 == .arrived { self.arrived(on: number) }
        }.run()
        towardClientEnded.wait()
        lock.withLock { _ = lastDelivery.removeValue(forKey: number) }
        sockets.close(client)
        sockets.close(upstream)
    }

    /// The proxy delivered bytes to the client of connection `number`.
    private func delivered(on number: Int) {
        let now = ContinuousClock.now
        lock.withLock { lastDelivery[number] = now }
    }

    /// Bytes of the client of connection `number` arrived.
    private func arrived(on number: Int) {
        let now = ContinuousClock.now
        lock.withLock {
            log.clientChunks += 1
            if let delivery = lastDelivery.removeValue(forKey: number) {
                log.turnarounds.append(now - delivery)
            }
        }
    }
}

extension DelayingProxy {
    /// What a ``DelayingProxy`` saw, timed at the proxy.
    public struct Timeline: Sendable {
        /// The connections accepted.
        public var connections = 0
        /// The reads of bytes from clients.
        public var clientChunks = 0
        /// For each client's read that came after the proxy delivered bytes to that client on the
        /// same connection since the client's previous read: the time from the end of the last of
        /// those deliveries (the `send` returned) to the read (`recv` returned them). Over
        /// HTTP/1.1, one per request but a connection's first: from the last byte of a response
        /// leaving the proxy to the first byte of the next request on that connection arriving.
        /// Over TLS the handshake's second flight adds one per connection; over HTTP/2 (streams
        /// side by side on one connection) it is the time from the last delivery of any stream
        /// to the client's next bytes (a request, or a frame such as a window update).
        public var turnarounds: [Duration] = []

        /// The median of ``turnarounds``; nil without any.
        public var medianTurnaround: Duration? {
            guard !turnarounds.isEmpty else { return nil }
            return turnarounds.sorted()[turnarounds.count / 2]
        }
    }
}
