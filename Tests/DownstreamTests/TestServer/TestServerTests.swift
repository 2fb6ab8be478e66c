import DownstreamTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tests of the loopback test server: HTTP semantics, framing, faults, the request log and
/// shutdown. Most use `RawHTTPConnection` to see the exact bytes; a few use `URLSession` to
/// check that a real client agrees.
@Suite(.timeLimit(.minutes(1)))
struct TestServerTests {
    // MARK: Helpers

    /// A server with `body` on `/file`.
    private static func server(serving route: Route, at path: String = "/file") throws -> TestServer {
        let server = try TestServer()
        server.setRoute(path, route)
        return server
    }

    /// A simple, non-cancelled URLSession request.
    private static func fetch(
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
        let (data, response) = try await session.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// One request on a fresh raw connection.
    private static func get(
        _ server: TestServer,
        _ target: String = "/file",
        method: String = "GET",
        headers: [String: String] = [:]
    ) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest(target, method: method, headers: headers)
        return try connection.readResponse(method: method)
    }

    private static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("TestServerTests-\(UUID().uuidString)")
        try data.write(to: url)
        return url
    }

    // MARK: Full responses

    @Test func fullGetMatchesBodyThroughURLSession() async throws {
        let body = Body.pattern(count: 3_000_000, seed: 7)
        var route = Route(body: body)
        route.etag = "\"v1\""
        route.lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        route.contentType = "application/x-test"
        route.contentDisposition = "attachment; filename=\"a.bin\""
        route.extraHeaders = ["X-Extra": "yes"]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let (data, response) = try await Self.fetch(server.url("/file"))
        #expect(response.statusCode == 200)
        #expect(data == body.bytes(0..<body.count))
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "3000000")
        #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/x-test")
        #expect(response.value(forHTTPHeaderField: "Content-Disposition") == "attachment; filename=\"a.bin\"")
        #expect(response.value(forHTTPHeaderField: "X-Extra") == "yes")
        #expect(response.value(forHTTPHeaderField: "Date")?.hasSuffix(" GMT") == true)

        let file = try Self.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try body.firstMismatch(inFileAt: file) == nil)
        #expect(server.requests("/file").last?.bodyBytesSent == body.count)
        #expect(server.totalBodyBytesSent == body.count)
    }

    @Test func rawGetMatchesBodyAndDefaults() throws {
        let body = Body.data(Data("hello, world".utf8))
        let server = try Self.server(serving: Route(body: body))
        defer { server.shutdown() }

        let response = try Self.get(server)
        #expect(response.status == 200)
        #expect(response.ending == .complete)
        #expect(response.body == Data("hello, world".utf8))
        #expect(response.header("content-type") == "application/octet-stream")
        #expect(response.header("content-length") == "12")
        #expect(response.header("etag") == nil)
        #expect(response.header("last-modified") == nil)
        #expect(response.header("connection") == nil)
    }

    @Test func headSendsHeadersWithoutBody() throws {
        var route = Route(body: .pattern(count: 5000))
        route.etag = "\"h\""
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file", method: "HEAD")
        let head = try connection.readResponse(method: "HEAD")
        #expect(head.status == 200)
        #expect(head.header("content-length") == "5000")
        #expect(head.header("etag") == "\"h\"")
        #expect(head.body.isEmpty)

        // The connection stays usable: no stray body bytes were sent.
        try connection.sendRequest("/file", headers: ["Range": "bytes=0-3"])
        let next = try connection.readResponse()
        #expect(next.status == 206)
        #expect(next.body == route.body.bytes(0..<4))
        #expect(server.requests("/file").map(\.bodyBytesSent) == [0, 4])
    }

    @Test func unknownPathAndMethodAreRejected() throws {
        let server = try Self.server(serving: Route(body: .pattern(count: 10)))
        defer { server.shutdown() }

        let missing = try Self.get(server, "/missing")
        #expect(missing.status == 404)
        #expect(!missing.body.isEmpty)
        let post = try Self.get(server, "/file", method: "POST", headers: ["Content-Length": "0"])
        #expect(post.status == 405)
        #expect(post.header("allow") == "GET, HEAD")
        #expect(server.requests().map(\.status) == [404, 405])
    }

    // MARK: Ranges

    @Test(arguments: [
        ("bytes=10-", 206, 10..<1000),
        ("bytes=10-19", 206, 10..<20),
        ("bytes=990-5000", 206, 990..<1000),
        ("bytes=-5", 206, 995..<1000),
        ("bytes=-5000", 206, 0..<1000),
        ("bytes=0-0", 206, 0..<1),
        ("bytes=5-1", 200, 0..<1000),
        ("bytes=0-1,5-6", 200, 0..<1000),
        ("items=0-1", 200, 0..<1000),
        ("bytes=abc", 200, 0..<1000),
    ] as [(String, Int, Range<Int64>)])
    func rangeRequests(header: String, status: Int, expected: Range<Int64>) throws {
        let body = Body.pattern(count: 1000, seed: 3)
        let server = try Self.server(serving: Route(body: body))
        defer { server.shutdown() }

        let response = try Self.get(server, headers: ["Range": header])
        #expect(response.status == status)
        #expect(response.body == body.bytes(expected))
        #expect(response.header("content-length") == "\(expected.count)")
        if status == 206 {
            #expect(response.header("content-range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1000")
        } else {
            #expect(response.header("content-range") == nil)
        }
    }

    @Test(arguments: ["bytes=1000-", "bytes=5000-6000", "bytes=-0"])
    func unsatisfiableRangeGets416(header: String) throws {
        let server = try Self.server(serving: Route(body: .pattern(count: 1000)))
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file", headers: ["Range": header])
        let response = try connection.readResponse()
        #expect(response.status == 416)
        #expect(response.header("content-range") == "bytes */1000")
        #expect(response.body.isEmpty)

        try connection.sendRequest("/file")  // still keep-alive
        #expect(try connection.readResponse().status == 200)
    }

    @Test func ifRangeUsesStrongComparisonOrExactDate() throws {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        var strong = Route(body: .pattern(count: 100))
        strong.etag = "\"v1\""
        strong.lastModified = date
        var weak = Route(body: .pattern(count: 100))
        weak.etag = "W/\"v1\""
        let server = try TestServer()
        defer { server.shutdown() }
        server.setRoute("/strong", strong)
        server.setRoute("/weak", weak)

        func status(_ path: String, _ ifRange: String) throws -> Int {
            let response = try Self.get(server, path, headers: ["Range": "bytes=50-", "If-Range": ifRange])
            return response.status
        }
        #expect(try status("/strong", "\"v1\"") == 206)
        #expect(try status("/strong", "\"v2\"") == 200)
        #expect(try status("/strong", "W/\"v1\"") == 200)
        #expect(try status("/strong", date) == 206)
        #expect(try status("/strong", "Mon, 07 Nov 1994 08:49:37 GMT") == 200)
        #expect(try status("/weak", "W/\"v1\"") == 200)
        #expect(try status("/weak", "\"v1\"") == 200)
    }

    @Test func rangesCanBeTurnedOffOrIgnoredOnce() throws {
        var off = Route(body: .pattern(count: 100))
        off.supportsRanges = false
        var once = Route(body: .pattern(count: 100))
        once.faults = [.ignoreRange]
        let server = try TestServer()
        defer { server.shutdown() }
        server.setRoute("/off", off)
        server.setRoute("/once", once)

        let unsupported = try Self.get(server, "/off", headers: ["Range": "bytes=10-"])
        #expect(unsupported.status == 200)
        #expect(unsupported.body.count == 100)
        #expect(unsupported.header("accept-ranges") == nil)

        let ignored = try Self.get(server, "/once", headers: ["Range": "bytes=10-"])
        #expect(ignored.status == 200)
        #expect(ignored.body.count == 100)
        #expect(ignored.header("accept-ranges") == "bytes")
        let honoured = try Self.get(server, "/once", headers: ["Range": "bytes=10-"])
        #expect(honoured.status == 206)
        #expect(honoured.body.count == 90)
    }

    @Test func rangeFaultsClaimWhatTheyAreTold() throws {
        let body = Body.pattern(count: 1000, seed: 9)
        var route = Route(body: body)
        route.faults = [.rangeNotSatisfiable, .contentRangeStart(100), .contentRangeTotal(5000), .status(503)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let refused = try Self.get(server, headers: ["Range": "bytes=10-"])
        #expect(refused.status == 416)
        #expect(refused.header("content-range") == "bytes */1000")

        let shifted = try Self.get(server, headers: ["Range": "bytes=500-"])
        #expect(shifted.status == 206)
        #expect(shifted.header("content-range") == "bytes 100-999/1000")
        #expect(shifted.body == body.bytes(100..<1000))

        let wrongTotal = try Self.get(server, headers: ["Range": "bytes=500-599"])
        #expect(wrongTotal.status == 206)
        #expect(wrongTotal.header("content-range") == "bytes 500-599/5000")
        #expect(wrongTotal.body == body.bytes(500..<600))

        let unavailable = try Self.get(server, headers: ["Range": "bytes=500-"])
        #expect(unavailable.status == 503)
        #expect(String(decoding: unavailable.body, as: UTF8.self).hasPrefix("503"))
        #expect(unavailable.header("content-range") == nil)

        #expect(try Self.get(server, headers: ["Range": "bytes=500-"]).status == 206)
    }

    @Test func etagChangesEveryRequestDefeatsIfRange() throws {
        var route = Route(body: .pattern(count: 100))
        route.etag = "\"v1\""
        route.etagChangesEveryRequest = true
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let first = try Self.get(server)
        #expect(first.header("etag") == "\"v1-0\"")
        let second = try Self.get(server, headers: ["Range": "bytes=10-", "If-Range": "\"v1-0\""])
        #expect(second.header("etag") == "\"v1-1\"")
        #expect(second.status == 200)
        #expect(second.body.count == 100)
    }

    // MARK: Framing and connections

    @Test func chunkedResponsesAreFramedInWriteSizeChunks() throws {
        let body = Body.pattern(count: 2500, seed: 4)
        var route = Route(body: body)
        route.chunked = true
        route.writeSize = 1000
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file")
        let full = try connection.readResponse()
        #expect(full.status == 200)
        #expect(full.header("transfer-encoding") == "chunked")
        #expect(full.header("content-length") == nil)
        #expect(full.chunkSizes == [1000, 1000, 500, 0])
        #expect(full.body == body.bytes(0..<2500))
        #expect(full.ending == .complete)

        try connection.sendRequest("/file", headers: ["Range": "bytes=2000-"])
        let part = try connection.readResponse()
        #expect(part.status == 206)
        #expect(part.chunkSizes == [500, 0])
        #expect(part.body == body.bytes(2000..<2500))
        #expect(Set(server.requests().map(\.connection)).count == 1)
    }

    @Test func keepAliveReusesTheConnectionUntilClose() throws {
        let server = try Self.server(serving: Route(body: .pattern(count: 10)))
        defer { server.shutdown() }

        let first = try RawHTTPConnection(port: server.port)
        try first.sendRequest("/file")
        #expect(try first.readResponse().ending == .complete)
        try first.sendRequest("/file")
        #expect(try first.readResponse().ending == .complete)
        let second = try RawHTTPConnection(port: server.port)
        try second.sendRequest("/file", headers: ["Connection": "close"])
        let closing = try second.readResponse()
        #expect(closing.header("connection") == "close")
        let rest = second.readToEnd()
        #expect(rest.data.isEmpty)
        #expect(rest.ending == .closed)

        let connections = server.requests().map(\.connection)
        #expect(connections.count == 3)
        #expect(connections[0] == connections[1])
        #expect(connections[2] != connections[0])
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let body = Body.pattern(count: 100)
        let server = try Self.server(serving: Route(body: body))
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        let host = "Host: 127.0.0.1\r\n"
        try connection.send(
            "GET /file HTTP/1.1\r\n\(host)Range: bytes=0-9\r\n\r\nGET /file?x=1 HTTP/1.1\r\n\(host)Range: bytes=90-\r\n\r\n"
        )
        #expect(try connection.readResponse().body == body.bytes(0..<10))
        #expect(try connection.readResponse().body == body.bytes(90..<100))
        #expect(server.requests().map(\.target) == ["/file", "/file?x=1"])
    }

    @Test func badRequestsAreAnsweredAndClosed() throws {
        let server = try TestServer()
        defer { server.shutdown() }

        let garbage = try RawHTTPConnection(port: server.port)
        try garbage.send("NOT HTTP\r\n\r\n")
        #expect(try garbage.readResponse().status == 400)
        #expect(garbage.readToEnd().ending == .closed)

        let huge = try RawHTTPConnection(port: server.port)
        try huge.send("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
        #expect(try huge.readResponse().status == 431)
        #expect(server.requests().isEmpty)
    }

    @Test func redirectSendsLocationAndURLSessionFollowsIt() async throws {
        var redirect = Route(body: .data(Data()))
        redirect.redirect = (status: 302, location: "/target")
        let body = Body.pattern(count: 4000, seed: 5)
        let server = try TestServer()
        defer { server.shutdown() }
        server.setRoute("/start", redirect)
        server.setRoute("/target", Route(body: body))

        let raw = try Self.get(server, "/start")
        #expect(raw.status == 302)
        #expect(raw.header("location") == "/target")
        #expect(raw.header("content-length") == "0")

        let (data, response) = try await Self.fetch(server.url("/start"))
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/target")
        #expect(data == body.bytes(0..<4000))
        #expect(server.requests().map(\.path) == ["/start", "/start", "/target"])
    }

    @Test func clientResetMidBodyDoesNotHurtTheServer() throws {
        let server = try Self.server(serving: Route(body: .pattern(count: 50_000_000)))
        defer { server.shutdown() }

        let rude = try RawHTTPConnection(port: server.port)
        try rude.sendRequest("/file")
        _ = try rude.readHead()
        _ = rude.read(count: 100_000)
        rude.reset()

        let polite = try Self.get(server, headers: ["Range": "bytes=0-99"])
        #expect(polite.status == 206)
        #expect(polite.body.count == 100)
    }

    // MARK: Byte-count faults

    @Test func closeAfterSendsExactlyNBytesThenFIN() throws {
        let body = Body.pattern(count: 100_000, seed: 1)
        var route = Route(body: body)
        route.faults = [.closeAfter(12_345)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let response = try Self.get(server)
        #expect(response.status == 200)
        #expect(response.header("content-length") == "100000")
        #expect(response.body == body.bytes(0..<12_345))
        #expect(response.ending == .closed)
        #expect(server.requests("/file")[0].bodyBytesSent == 12_345)
        #expect(try Self.get(server).body.count == 100_000)
    }

    @Test func closeAfterInChunkedModeOmitsTheLastChunk() throws {
        var route = Route(body: .pattern(count: 10_000))
        route.chunked = true
        route.writeSize = 1000
        route.faults = [.closeAfter(2500)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let response = try Self.get(server)
        #expect(response.body == route.body.bytes(0..<2500))
        #expect(response.chunkSizes == [1000, 1000, 500])
        #expect(response.ending == .closed)
    }

    @Test func closeAfterWithURLSessionFails() async throws {
        var route = Route(body: .pattern(count: 100_000))
        route.faults = [.closeAfter(1000)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        await #expect(throws: (any Error).self) {
            _ = try await Self.fetch(server.url("/file"))
        }
    }

    @Test func resetAfterSendsNBytesThenReset() throws {
        let body = Body.pattern(count: 5_000_000, seed: 2)
        var route = Route(body: body)
        route.faults = [.resetAfter(1_000_000)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let response = try Self.get(server)
        #expect(response.status == 200)
        #expect(response.ending == .reset)
        #expect(response.body == body.bytes(0..<1_000_000))
    }

    @Test func holdAfterWaitsForRelease() async throws {
        let body = Body.pattern(count: 300_000, seed: 6)
        var route = Route(body: body)
        route.faults = [.holdAfter(100_000), .holdAfter(10)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file")
        let head = try connection.readHead()
        #expect(head.status == 200)
        let first = connection.read(count: 100_000)
        #expect(first.data == body.bytes(0..<100_000))
        #expect(connection.isQuiet(for: .milliseconds(200)))
        #expect(server.requests("/file")[0].bodyBytesSent == 100_000)

        server.release("/file")
        let rest = connection.read(count: 200_000)
        #expect(rest.ending == nil)
        #expect(rest.data == body.bytes(100_000..<300_000))

        // A released path does not hold again...
        try connection.sendRequest("/file")
        #expect(try connection.readResponse().body.count == 300_000)

        // ...until its route is set again.
        route.faults = [.holdAfter(0)]
        server.setRoute("/file", route)
        try connection.sendRequest("/file")
        _ = try connection.readHead()
        #expect(connection.isQuiet(for: .milliseconds(100)))
        server.release("/file")
        #expect(connection.read(count: 300_000).ending == nil)
        #expect(server.requests("/file").map(\.index) == [0, 1, 0])
    }

    @Test func stallAfterEndsOnShutdown() throws {
        let body = Body.pattern(count: 100_000)
        var route = Route(body: body)
        route.faults = [.stallAfter(5000)]
        let server = try Self.server(serving: route)

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file")
        _ = try connection.readHead()
        #expect(connection.read(count: 5000).data == body.bytes(0..<5000))
        #expect(connection.isQuiet(for: .milliseconds(100)))

        let start = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(1))
        let rest = connection.readToEnd()
        #expect(rest.data.isEmpty)
        #expect(rest.ending == .closed)
    }

    @Test func stalledClientThatLeavesFreesTheServer() async throws {
        var route = Route(body: .pattern(count: 100_000))
        route.faults = [.stallAfter(10)]
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file")
        _ = try connection.readHead()
        connection.close()
        #expect(try Self.get(server).body.count == 100_000)
    }

    // MARK: Throttling

    @Test func throttledBodiesArePaced() throws {
        var route = Route(body: .pattern(count: 50_000))
        route.bytesPerSecond = 200_000
        let server = try Self.server(serving: route)
        defer { server.shutdown() }

        let start = ContinuousClock.now
        let response = try Self.get(server)
        let elapsed = ContinuousClock.now - start
        #expect(response.body == route.body.bytes(0..<50_000))
        #expect(elapsed >= .milliseconds(200))  // 50 KB at 200 KB/s: at least ~0.24 s
    }

    // MARK: Request log and waiting

    @Test func requestLogRecordsEveryField() throws {
        let server = try Self.server(serving: Route(body: .pattern(count: 1000)))
        defer { server.shutdown() }

        _ = try Self.get(server, "/file?a=1&b=2", headers: ["Range": "bytes=100-199", "X-Custom": "Value"])
        _ = try Self.get(server, "/file", headers: ["Range": "bytes=-10"])
        _ = try Self.get(server, "/other")

        let all = server.requests()
        #expect(all.count == 3)
        let first = all[0]
        #expect(first.index == 0)
        #expect(first.method == "GET")
        #expect(first.path == "/file")
        #expect(first.target == "/file?a=1&b=2")
        #expect(first.headers["x-custom"] == "Value")
        #expect(first.header("X-CUSTOM") == "Value")
        #expect(first.header("host") != nil)
        #expect(first.rangeStart == 100)
        #expect(first.rangeEnd == 199)
        #expect(first.status == 206)
        #expect(first.bodyBytesSent == 100)

        let second = all[1]
        #expect(second.index == 1)
        #expect(second.rangeStart == nil)
        #expect(second.rangeSuffixLength == 10)
        #expect(second.bodyBytesSent == 10)
        #expect(second.connection != first.connection)

        #expect(all[2].path == "/other")
        #expect(all[2].index == 0)
        #expect(all[2].status == 404)
        #expect(server.requests("/file").count == 2)
        #expect(server.totalBodyBytesSent == 110 + Int64(all[2].bodyBytesSent))
    }

    @Test func waitForRequestsWakesWhenRequestsArrive() async throws {
        let server = try Self.server(serving: Route(body: .pattern(count: 10)))
        defer { server.shutdown() }
        let port = server.port

        let client = Task.detached {
            for _ in 0..<3 {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("/file")
                _ = try connection.readResponse()
            }
        }
        #expect(await server.waitForRequests(3, path: "/file"))
        #expect(server.requests("/file").count >= 3)
        try await client.value
        #expect(await server.waitForRequests(3))  // already satisfied
        #expect(await server.waitForRequests(1, path: "/never", timeout: .milliseconds(50)) == false)
    }

    @Test func waitForRequestsReturnsOnShutdownAndCancellation() async throws {
        let server = try TestServer()
        let waiting = Task { await server.waitForRequests(1) }
        let cancelled = Task { await server.waitForRequests(1, path: "/x") }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        server.shutdown()
        #expect(await waiting.value == false)
    }

    // MARK: Shutdown

    @Test func shutdownIsQuickWithBusyConnections() async throws {
        let server = try TestServer()
        var stall = Route(body: .pattern(count: 1_000_000))
        stall.faults = [.stallAfter(1000)]
        var hold = Route(body: .pattern(count: 1_000_000))
        hold.faults = [.holdAfter(1000)]
        var slow = Route(body: .pattern(count: 1_000_000))
        slow.bytesPerSecond = 1000
        server.setRoute("/stall", stall)
        server.setRoute("/hold", hold)
        server.setRoute("/slow", slow)
        server.setRoute("/small", Route(body: .pattern(count: 10)))

        var connections: [RawHTTPConnection] = []
        for path in ["/stall", "/hold", "/slow"] {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.sendRequest(path)
            _ = try connection.readHead()
            connections.append(connection)
        }
        let idle = try RawHTTPConnection(port: server.port)
        try idle.sendRequest("/small")
        _ = try idle.readResponse()
        connections.append(idle)
        let partial = try RawHTTPConnection(port: server.port)
        try partial.send("GET /small HTTP/1.1\r\n")
        connections.append(partial)
        #expect(await server.waitForRequests(4))

        let start = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(1))
        for (number, connection) in connections.enumerated() {
            #expect(connection.readToEnd().ending == .closed, "connection \(number)")
        }
        server.shutdown()  // idempotent
        #expect(throws: (any Error).self) { _ = try RawHTTPConnection(port: server.port) }
    }

    @Test func manyServersRunInParallel() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seed in 0..<8 {
                group.addTask {
                    let body = Body.pattern(count: 200_000, seed: UInt64(seed))
                    let server = try Self.server(serving: Route(body: body))
                    defer { server.shutdown() }
                    let response = try Self.get(server)
                    #expect(response.body == body.bytes(0..<200_000))
                }
            }
            try await group.waitForAll()
        }
    }

    // MARK: Bodies

    @Test func patternIsDeterministicAndPositionDependent() {
        let body = Body.pattern(count: 1 << 20, seed: 11)
        #expect(body.count == 1 << 20)
        #expect(body.bytes(1000..<5000) == Body.pattern(count: 1 << 20, seed: 11).bytes(1000..<5000))
        #expect(body.bytes(0..<4096) != Body.pattern(count: 1 << 20, seed: 12).bytes(0..<4096))
        // No two 16 KiB blocks are alike, even a whole period apart.
        let blocks = (0..<32).map { body.bytes(Int64($0) * 16384..<Int64($0 + 1) * 16384) }
        #expect(Set(blocks).count == 32)
        #expect(body.bytes(0..<16) != body.bytes(65521..<(65521 + 16)))

        var streamed = Data()
        body.write(100..<700_000) { streamed.append(contentsOf: $0) }
        #expect(streamed == body.bytes(100..<700_000))
    }

    @Test func firstMismatchFindsDifferences() throws {
        let body = Body.pattern(count: 3_000_000, seed: 8)
        let good = body.bytes(0..<body.count)
        func mismatch(_ data: Data) throws -> Int64? {
            let file = try Self.temporaryFile(data)
            defer { try? FileManager.default.removeItem(at: file) }
            return try body.firstMismatch(inFileAt: file)
        }

        #expect(try mismatch(good) == nil)
        var flipped = good
        flipped[2_500_001] ^= 0x01
        #expect(try mismatch(flipped) == 2_500_001)
        #expect(try mismatch(good.prefix(1_234_567)) == 1_234_567)
        #expect(try mismatch(good + Data([0])) == 3_000_000)
        #expect(try mismatch(Data()) == 0)

        // Swapping two 16 KiB blocks is caught at the first of them.
        var swapped = good
        let a = 16384 * 10
        let b = 16384 * 11
        swapped.replaceSubrange(a..<(a + 16384), with: good[b..<(b + 16384)])
        swapped.replaceSubrange(b..<(b + 16384), with: good[a..<(a + 16384)])
        #expect(try mismatch(swapped) == Int64(a))

        // A body given as data works the same way.
        let small = Body.data(Data("abcdef".utf8))
        let file = try Self.temporaryFile(Data("abcxef".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try small.firstMismatch(inFileAt: file) == 3)
        #expect(throws: (any Error).self) {
            try small.firstMismatch(inFileAt: URL(fileURLWithPath: "/nonexistent/file"))
        }
    }
}
