@testable import Downstream
@testable import DownstreamTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TLS in front of a ``TestServer``: it accepts TLS connections on 127.0.0.1 and relays each
/// one's plaintext to the server's port, so that every feature of the test server (ranges,
/// faults, holds, the requests it saw) is there over TLS. OpenSSL's libssl does the TLS, loaded at
/// run time (FoundationNetworking's libcurl needs it, so it is where the tests run); where it
/// cannot be loaded, ``isAvailable`` is false and tests skip, saying so.
///
/// Connection *n* (from 0) shows the *n*th of the certificates given, the last one from there
/// on: a server whose key changes between the first connection and the others.
final class TLSFront: @unchecked Sendable {
    // Safe: `handshakeCount` is touched only under `lock`; the rest is immutable or locks itself.
    static var isAvailable: Bool { LibSSL.shared != nil }

    let port: Int
    private let upstreamPort: Int
    private let sockets: ConnectionSockets
    private let contexts: [OpaquePointer]
    private let ssl: LibSSL
    private let lock = NSLock()
    private var handshakeCount = 0

    /// A front on a free port for the server on `upstreamPort`, showing `certificates` (PEM
    /// certificate file, PEM key file) in turn.
    init(upstreamPort: Int, certificates: [(certificate: URL, key: URL)]) throws {
        guard let ssl = LibSSL.shared else { throw CocoaError(.featureUnsupported) }
        self.ssl = ssl
        contexts = try certificates.map { pair in
            guard let context = ssl.contextNew(ssl.serverMethod()),
                ssl.useCertificateChain(context, pair.certificate.path) == 1,
                ssl.usePrivateKey(context, pair.key.path, 1) == 1
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: pair.certificate.path]) }
            return context
        }
        (sockets, port) = try ConnectionSockets.listening()
        self.upstreamPort = upstreamPort
        sockets.accept { [self] client, number in relay(client, contexts[min(number, contexts.count - 1)]) }
    }

    deinit {
        contexts.forEach(ssl.contextFree)
    }

    /// `https://127.0.0.1:PORT/path`.
    func url(_ path: String) -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path)")!
    }

    /// How many TLS handshakes completed: one per connection a client kept.
    var handshakes: Int {
        lock.withLock { handshakeCount }
    }

    /// Stops listening and ends every connection.
    func stop() {
        sockets.shutDown()
    }

    /// One connection: the handshake, then bytes both ways until either side ends.
    private func relay(_ client: Int32, _ context: OpaquePointer) {
        defer { sockets.close(client) }
        // libssl writes with write(2): a client gone must be an error here, not a SIGPIPE.
        BrokenPipe.blockOnThisThread()
        guard let connection = ssl.new(context) else { return }
        defer { ssl.free(connection) }
        guard ssl.setDescriptor(connection, client) == 1, ssl.accept(connection) == 1 else { return }
        lock.withLock { handshakeCount += 1 }
        guard let upstream = try? POSIXSocket.connectToLoopback(port: upstreamPort), sockets.track(upstream) else {
            return
        }
        defer { sockets.close(upstream) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        relaying: while true {
            var fromClient = ssl.pending(connection) > 0
            var fromServer = false
            if !fromClient {
                let events = POSIXSocket.poll([client, upstream], timeout: -1)
                fromClient = events[0] != 0
                fromServer = events[1] != 0
            }
            if fromClient {
                let count = buffer.withUnsafeMutableBytes { ssl.read(connection, $0.baseAddress, Int32($0.count)) }
                guard count > 0,
                    buffer.withUnsafeBytes({
                        POSIXSocket.sendAll(upstream, UnsafeRawBufferPointer(rebasing: $0[..<Int(count)]))
                    })
                else { break }
            }
            if fromServer {
                let count = buffer.withUnsafeMutableBytes { POSIXSocket.receive(upstream, into: $0) }
                guard count > 0 else { break }
                var sent = 0
                while sent < count {
                    let written = buffer.withUnsafeBytes {
                        ssl.write(connection, $0.baseAddress! + sent, Int32(count - sent))
                    }
                    guard written > 0 else { break relaying }
                    sent += Int(written)
                }
            }
        }
        _ = ssl.shutdown(connection)
    }
}

/// The few libssl (OpenSSL 1.1 or 3) functions a TLS server needs, found with dlsym.
struct LibSSL: @unchecked Sendable {
    // Safe: C function pointers, immutable.
    let serverMethod: @convention(c) () -> OpaquePointer?
    let contextNew: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let contextFree: @convention(c) (OpaquePointer?) -> Void
    let useCertificateChain: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let usePrivateKey: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
    let new: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let free: @convention(c) (OpaquePointer?) -> Void
    let setDescriptor: @convention(c) (OpaquePointer?, Int32) -> Int32
    let accept: @convention(c) (OpaquePointer?) -> Int32
    let read: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    let write: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int32) -> Int32
    let pending: @convention(c) (OpaquePointer?) -> Int32
    let shutdown: @convention(c) (OpaquePointer?) -> Int32

    static let shared: LibSSL? = load()

    private static func load() -> LibSSL? {
        #if canImport(Glibc)
            guard let library = dlopen("libssl.so.3", RTLD_NOW) ?? dlopen("libssl.so.1.1", RTLD_NOW) else { return nil }
            func find<T>(_ name: String, as type: T.Type = T.self) -> T? {
                dlsym(library, name).map { unsafeBitCast($0, to: type) }
            }
            guard let serverMethod = find("TLS_server_method", as: (@convention(c) () -> OpaquePointer?).self),
                let contextNew = find("SSL_CTX_new", as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self),
                let contextFree = find("SSL_CTX_free", as: (@convention(c) (OpaquePointer?) -> Void).self),
                let useCertificateChain = find(
                    "SSL_CTX_use_certificate_chain_file",
                    as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32).self),
                let usePrivateKey = find(
                    "SSL_CTX_use_PrivateKey_file",
                    as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32).self),
                let new = find("SSL_new", as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self),
                let free = find("SSL_free", as: (@convention(c) (OpaquePointer?) -> Void).self),
                let setDescriptor = find("SSL_set_fd", as: (@convention(c) (OpaquePointer?, Int32) -> Int32).self),
                let accept = find("SSL_accept", as: (@convention(c) (OpaquePointer?) -> Int32).self),
                let read = find(
                    "SSL_read", as: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Int32).self),
                let write = find(
                    "SSL_write", as: (@convention(c) (OpaquePointer?, UnsafeRawPointer?, Int32) -> Int32).self),
                let pending = find("SSL_pending", as: (@convention(c) (OpaquePointer?) -> Int32).self),
                let shutdown = find("SSL_shutdown", as: (@convention(c) (OpaquePointer?) -> Int32).self)
            else { return nil }
            return LibSSL(
                serverMethod: serverMethod, contextNew: contextNew, contextFree: contextFree,
                useCertificateChain: useCertificateChain, usePrivateKey: usePrivateKey, new: new, free: free,
                setDescriptor: setDescriptor, accept: accept, read: read, write: write, pending: pending,
                shutdown: shutdown)
        #else
            return nil
        #endif
    }
}
