import DownstreamTesting
import Foundation
import Testing

/// The test server's hostile behaviours do what they say, seen through a raw connection.
@Suite(.timeLimit(.minutes(1)))
struct TestServerHostileTests {
    @Test func endlessHeadersNeverEndTheHead() throws {
        let server = try TestServer()
        defer { server.shutdown() }
        var route = Route(body: .pattern(count: 10))
        route.faults = [.endlessHeaders()]
        server.setRoute("/endless", route)
        let connection = try RawHTTPConnection(port: server.port)
        defer { connection.close() }
        try connection.sendRequest("/endless")
        let (data, _) = connection.read(count: 2 << 20)
        let text = String(decoding: data, as: UTF8.self)
        #expect(data.count == 2 << 20)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("X-Endless-1000: "))
        #expect(!text.contains("\r\n\r\n"))
    }

    @Test func aTrickleOfHeadersComesAtItsRate() throws {
        let server = try TestServer()
        defer { server.shutdown() }
        var route = Route(body: .pattern(count: 10))
        route.faults = [.endlessHeaders(bytesPerSecond: 200)]
        server.setRoute("/trickle", route)
        let connection = try RawHTTPConnection(port: server.port)
        defer { connection.close() }
        let start = ContinuousClock.now
        try connection.sendRequest("/trickle")
        let (data, _) = connection.read(count: 100)
        // 100 bytes at 200 a second: about half a second, never at once.
        #expect(ContinuousClock.now - start >= .milliseconds(400))
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }

    @Test func anOversizedHeaderAndAHugeChunkSizeAreSentAsSaid() throws {
        let server = try TestServer()
        defer { server.shutdown() }
        var oversized = Route(body: .pattern(count: 10))
        oversized.faults = [.oversizedHeader(300_000)]
        server.setRoute("/oversized", oversized)
        var chunked = Route(body: .pattern(count: 10))
        chunked.faults = [.hugeChunkSize]
        server.setRoute("/chunk", chunked)

        let head = try ServerProbe.get(server, "/oversized")
        #expect(head.headers["x-oversized"]?.count == 300_000)
        let connection = try RawHTTPConnection(port: server.port)
        defer { connection.close() }
        try connection.sendRequest("/chunk")
        let text = String(decoding: connection.readToEnd().data, as: UTF8.self)
        #expect(text.contains("Transfer-Encoding: chunked\r\n"))
        #expect(!text.contains("Content-Length"))
        #expect(text.contains("\r\n\r\n100000000000000000000\r\n"))
    }
}
