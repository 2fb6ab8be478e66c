import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Framing, connections and byte-count faults of the loopback test server. Most use `RawHTTPConnection` to see the exact bytes; a few use URLSession
/// to check that a real client agrees.
@Suite(.timeLimit(.minutes(1)))
struct TestServerConnectionTests {
    // MARK: Framing and connections

    @Test func chunkedResponsesAreFramedInWriteSizeChunks() throws {
        let body = Body.pattern(count: 2500, seed: 4)
        var route = Route(body: body)
        route.chunked = true
        route.writeSize = 1000
        let server = try ServerProbe.server(serving: route)
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
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 10)))
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
        let server = try ServerProbe.server(serving: Route(body: body))
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

        let raw = try ServerProbe.get(server, "/start")
        #expect(raw.status == 302)
        #expect(raw.header("location") == "/target")
        #expect(raw.header("content-length") == "0")

        let (data, response) = try await ServerProbe.fetch(server.url("/start"))
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/target")
        #expect(data == body.bytes(0..<4000))
        #expect(server.requests().map(\.path) == ["/start", "/start", "/target"])
    }

    @Test func clientResetMidBodyDoesNotHurtTheServer() throws {
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 50_000_000)))
        defer { server.shutdown() }

        let rude = try RawHTTPConnection(port: server.port)
        try rude.sendRequest("/file")
        _ = try rude.readHead()
        _ = rude.read(count: 100_000)
        rude.reset()

        let polite = try ServerProbe.get(server, headers: ["Range": "bytes=0-99"])
        #expect(polite.status == 206)
        #expect(polite.body.count == 100)
    }

    // MARK: Byte-count faults

    @Test func closeAfterSendsExactlyNBytesThenFIN() throws {
        let body = Body.pattern(count: 100_000, seed: 1)
        var route = Route(body: body)
        route.faults = [.closeAfter(12_345)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let response = try ServerProbe.get(server)
        #expect(response.status == 200)
        #expect(response.header("content-length") == "100000")
        #expect(response.body == body.bytes(0..<12_345))
        #expect(response.ending == .closed)
        #expect(server.requests("/file")[0].bodyBytesSent == 12_345)
        #expect(try ServerProbe.get(server).body.count == 100_000)
    }

    @Test func closeAfterInChunkedModeOmitsTheLastChunk() throws {
        var route = Route(body: .pattern(count: 10_000))
        route.chunked = true
        route.writeSize = 1000
        route.faults = [.closeAfter(2500)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let response = try ServerProbe.get(server)
        #expect(response.body == route.body.bytes(0..<2500))
        #expect(response.chunkSizes == [1000, 1000, 500])
        #expect(response.ending == .closed)
    }

    @Test func closeAfterWithURLSessionFails() async throws {
        var route = Route(body: .pattern(count: 100_000))
        route.faults = [.closeAfter(1000)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        await #expect(throws: (any Error).self) {
            _ = try await ServerProbe.fetch(server.url("/file"))
        }
    }

    @Test func resetAfterSendsNBytesThenReset() throws {
        let body = Body.pattern(count: 5_000_000, seed: 2)
        var route = Route(body: body)
        route.faults = [.resetAfter(1_000_000)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let response = try ServerProbe.get(server)
        #expect(response.status == 200)
        #expect(response.ending == .reset)
        expectSameBytes(response.body, body.bytes(0..<1_000_000))
    }

    @Test func holdAfterWaitsForRelease() async throws {
        let body = Body.pattern(count: 300_000, seed: 6)
        var route = Route(body: body)
        route.faults = [.holdAfter(100_000), .holdAfter(10)]
        let server = try ServerProbe.server(serving: route)
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
        let server = try ServerProbe.server(serving: route)

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
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file")
        _ = try connection.readHead()
        connection.close()
        #expect(try ServerProbe.get(server).body.count == 100_000)
    }
}
