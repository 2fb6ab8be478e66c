import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Helpers of the test server's tests.
enum ServerProbe {
    /// A server with `body` on `/file`.
    static func server(serving route: Route, at path: String = "/file") throws -> TestServer {
        let server = try TestServer()
        server.setRoute(path, route)
        return server
    }

    /// A simple URLSession request, with a completion handler: the async URLSession methods
    /// can deadlock on Linux when cancelled (a test that times out is cancelled). URLSession is
    /// called from a thread of its own: on Linux its calls wait for one queue shared by every
    /// session of the process, which a download held back by a slow disk or a bandwidth limit
    /// holds too; a thread of Swift's concurrency pool (one per core) must not wait there.
    static func fetch(
        _ url: URL,
        method: String = "GET",
        headers: [String: String] = [:]
    ) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [request] in
                let session = URLSession(configuration: .ephemeral)
                session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: error ?? URLError(.badServerResponse))
                    }
                }.resume()
                session.finishTasksAndInvalidate()
            }
        }
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// One request on a fresh raw connection.
    static func get(
        _ server: TestServer,
        _ target: String = "/file",
        method: String = "GET",
        headers: [String: String] = [:]
    ) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest(target, method: method, headers: headers)
        return try connection.readResponse(method: method)
    }

    /// The `errno` of binding a new TCP socket, with `SO_REUSEADDR` set, to `127.0.0.1:port`,
    /// or 0 if that worked (the socket is closed again at once).
    static func bindError(port: Int) -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0 ? 0 : errno
    }

    static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("TestServerTests-\(UUID().uuidString)")
        try data.writeWithoutSync(to: url)
        return url
    }
}
