import DownstreamTesting
import Foundation
import Testing

/// Expiring signed URLs (`Route.queryExpiresAfter`) of the loopback test server, seen through
/// `RawHTTPConnection`: where a response is cut, and which requests are refused.
@Suite(.timeLimit(.minutes(1)))
struct TestServerExpiringQueryTests {
    @Test func expiringQueryIsCutAtItsBudgetThenRefused() throws {
        let body = Body.pattern(count: 10_000, seed: 14)
        var route = Route(body: body)
        route.queryExpiresAfter = 5000
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file?sig=1", headers: ["Range": "bytes=0-2999"])
        let within = try connection.readResponse()
        #expect(within.status == 206)
        #expect(within.body == body.bytes(0..<3000))

        // Same connection: a response within the budget keeps it open.
        try connection.sendRequest("/file?sig=1", headers: ["Range": "bytes=3000-"])
        let cut = try connection.readResponse()
        #expect(cut.status == 206)
        #expect(cut.header("content-length") == "7000")
        #expect(cut.header("content-range") == "bytes 3000-9999/10000")
        #expect(cut.body == body.bytes(3000..<5000))
        #expect(cut.ending == .closed)

        let expired = try ServerProbe.get(server, "/file?sig=1", headers: ["Range": "bytes=5000-"])
        #expect(expired.status == 403)
        #expect(String(decoding: expired.body, as: UTF8.self).hasPrefix("403"))

        let renewed = try ServerProbe.get(server, "/file?sig=2", headers: ["Range": "bytes=5000-"])
        #expect(renewed.status == 206)
        #expect(renewed.body == body.bytes(5000..<10_000))
        #expect(renewed.ending == .complete)

        let log = server.requests("/file")
        #expect(log.map(\.status) == [206, 206, 403, 206])
        #expect(log.map(\.target) == ["/file?sig=1", "/file?sig=1", "/file?sig=1", "/file?sig=2"])
        #expect(log[0].connection == log[1].connection)
        #expect(log[1].bodyBytesSent == 2000)
    }

    @Test func expiringRouteRefusesRequestsWithoutQuery() throws {
        var route = Route(body: .pattern(count: 100))
        route.queryExpiresAfter = 1000
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let plain = try ServerProbe.get(server, "/file")
        #expect(plain.status == 403)
        #expect(String(decoding: plain.body, as: UTF8.self).hasPrefix("403"))
        #expect(try ServerProbe.get(server, "/file?").status == 403)
        #expect(try ServerProbe.get(server, "/file?sig=1", method: "HEAD").status == 200)
        let signed = try ServerProbe.get(server, "/file?sig=1")
        #expect(signed.status == 200)
        #expect(signed.body.count == 100)
        #expect(server.requests("/file").map(\.status) == [403, 403, 200, 200])
    }

    @Test func expiringQueryEndingExactlyAtItsBudgetCompletes() throws {
        var route = Route(body: .pattern(count: 1000))
        route.queryExpiresAfter = 1000
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file?sig=1")
        let full = try connection.readResponse()
        #expect(full.body.count == 1000)
        #expect(full.ending == .complete)
        try connection.sendRequest("/file?sig=1")
        #expect(try connection.readResponse().status == 403)
        #expect(Set(server.requests().map(\.connection)).count == 1)
    }

    @Test func aFaultThatEndsTheResponseUsesOnlyWhatItSent() throws {
        let body = Body.pattern(count: 10_000, seed: 15)
        var route = Route(body: body)
        route.queryExpiresAfter = 6000
        route.faults = [.closeAfter(1000)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let broken = try ServerProbe.get(server, "/file?sig=1")
        #expect(broken.body == body.bytes(0..<1000))
        #expect(broken.ending == .closed)

        let resumed = try ServerProbe.get(server, "/file?sig=1", headers: ["Range": "bytes=1000-"])
        #expect(resumed.status == 206)
        #expect(resumed.body == body.bytes(1000..<6000))
        #expect(resumed.ending == .closed)
        #expect(try ServerProbe.get(server, "/file?sig=1", headers: ["Range": "bytes=6000-"]).status == 403)
    }

    @Test func bytesNotSentToAClientThatLeftStayInTheBudget() throws {
        let body = Body.pattern(count: 10_000, seed: 17)
        var route = Route(body: body)
        route.queryExpiresAfter = 6000
        route.faults = [.holdAfter(1000)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let leaving = try RawHTTPConnection(port: server.port)
        try leaving.sendRequest("/file?sig=1")
        _ = try leaving.readHead()
        #expect(leaving.read(count: 1000).data == body.bytes(0..<1000))
        leaving.finishSending()
        // The server closes once it noticed the client left, and gave back the unsent bytes first.
        #expect(leaving.readToEnd().ending == .closed)

        let resumed = try ServerProbe.get(server, "/file?sig=1", headers: ["Range": "bytes=1000-"])
        #expect(resumed.status == 206)
        #expect(resumed.body == body.bytes(1000..<6000))
        #expect(resumed.ending == .closed)
        #expect(server.requests("/file").map(\.bodyBytesSent) == [1000, 5000])
    }

    @Test func responsesInProgressShareTheBudget() throws {
        let body = Body.pattern(count: 10_000, seed: 16)
        var route = Route(body: body)
        route.queryExpiresAfter = 4000
        route.faults = [.holdAfter(100)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let held = try RawHTTPConnection(port: server.port)
        try held.sendRequest("/file?sig=1")
        #expect(try held.readHead().header("content-length") == "10000")
        #expect(held.read(count: 100).data == body.bytes(0..<100))

        // The held response reserved the whole budget: nothing is left for another.
        #expect(try ServerProbe.get(server, "/file?sig=1", headers: ["Range": "bytes=100-"]).status == 403)
        server.release("/file")
        let rest = held.readToEnd()
        #expect(rest.data == body.bytes(100..<4000))
        #expect(rest.ending == .closed)

        // Setting the route again renews every budget.
        route.faults = []
        server.setRoute("/file", route)
        #expect(try ServerProbe.get(server, "/file?sig=1", headers: ["Range": "bytes=4000-7999"]).status == 206)
    }
}
