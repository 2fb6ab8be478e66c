import DownstreamTesting
import Foundation
import Testing

/// The delaying proxy of the benchmarks: bytes come through whole and in order, each direction
/// half a round trip late and a connection's first request one round trip more, and its timeline
/// counts what it saw.
@Suite(.timeLimit(.minutes(1)))
struct DelayingProxyTests {
    @Test func requestsComeThroughWholeAndOneRoundTripLate() throws {
        let body = Body.pattern(count: 300_000, seed: 5)
        let server = try ServerProbe.server(serving: Route(body: body))
        defer { server.shutdown() }
        let roundTrip = Duration.milliseconds(40)
        let proxy = try DelayingProxy(upstreamPort: server.port, roundTripTime: roundTrip)
        defer { proxy.shutdown() }
        let clock = ContinuousClock()

        let connection = try RawHTTPConnection(port: proxy.port)
        defer { connection.close() }
        var start = clock.now
        try connection.sendRequest("/file")
        let first = try connection.readResponse()
        // The handshake's round trip, then the request's.
        #expect(start.duration(to: clock.now) >= roundTrip * 2)
        #expect(first.status == 200)
        #expect(first.body == body.bytes(0..<body.count))

        start = clock.now
        try connection.sendRequest("/file", headers: ["Range": "bytes=1000-1999"])
        let second = try connection.readResponse()
        #expect(start.duration(to: clock.now) >= roundTrip)
        #expect(second.status == 206)
        #expect(second.body == body.bytes(1000..<2000))

        let timeline = proxy.takeTimeline()
        #expect(timeline.connections == 1)
        #expect(timeline.clientChunks == 2)
        // One turnaround: the second request, after the first response.
        #expect(timeline.turnarounds.count == 1)
        #expect(proxy.takeTimeline().turnarounds.isEmpty)
        #expect(server.requests().count == 2)
    }

    @Test func theEndOfAStreamIsPassedOn() throws {
        let server = try ServerProbe.server(serving: Route(body: Body.pattern(count: 10, seed: 1)))
        defer { server.shutdown() }
        let proxy = try DelayingProxy(upstreamPort: server.port, roundTripTime: .milliseconds(10))
        defer { proxy.shutdown() }

        let connection = try RawHTTPConnection(port: proxy.port)
        defer { connection.close() }
        try connection.sendRequest("/file", headers: ["Connection": "close"])
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.ending == .complete)
        // The server's close reaches the client.
        #expect(connection.readToEnd().ending == .closed)
    }
}
