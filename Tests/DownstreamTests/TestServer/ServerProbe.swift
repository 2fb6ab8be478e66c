import DownstreamTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
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
    /// can deadlock on Linux when cancelled (a test that times out is cancelled).
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
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let data, let response {
                    continuation.resume(returning: (data, response))
                } else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
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

    static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("TestServerTests-\(UUID().uuidString)")
        try data.write(to: url)
        return url
    }
}
