import DownstreamTesting
import Foundation
import Testing

/// Conditional requests of the loopback test server: `If-None-Match` and `If-Modified-Since`
/// answered `304 Not Modified`, seen through `RawHTTPConnection`.
@Suite(.timeLimit(.minutes(1)))
struct TestServerConditionalTests {
    static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    /// A server with `/file`: 1000 bytes, `ETag` `etag`, `Last-Modified` ``lastModified``.
    static func server(etag: String?) throws -> TestServer {
        var route = Route(body: .pattern(count: 1000, seed: 18))
        route.etag = etag
        route.lastModified = lastModified
        return try ServerProbe.server(serving: route)
    }

    @Test func matchingTagGets304WithValidatorsAndNoBody() throws {
        let server = try Self.server(etag: "\"v1\"")
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file", headers: ["If-None-Match": "\"v1\""])
        let response = try connection.readResponse()
        #expect(response.status == 304)
        #expect(response.header("etag") == "\"v1\"")
        #expect(response.header("last-modified") == Self.lastModified)
        #expect(response.header("date")?.hasSuffix(" GMT") == true)
        #expect(response.header("content-length") == nil)
        #expect(response.header("transfer-encoding") == nil)

        // No body bytes followed: the next answer on the connection starts where it should.
        try connection.sendRequest("/file")
        let full = try connection.readResponse()
        #expect(full.status == 200)
        #expect(full.body.count == 1000)
        #expect(server.requests("/file").map(\.status) == [304, 200])
        #expect(server.requests("/file").map(\.bodyBytesSent) == [0, 1000])
    }

    @Test(
        arguments: [
            ("\"v1\"", "\"v1\"", 304),
            ("\"v1\"", "W/\"v1\"", 304),
            ("W/\"v1\"", "\"v1\"", 304),
            ("W/\"v1\"", "W/\"v1\"", 304),
            ("\"v1\"", "\"v2\"", 200),
            ("\"v1\"", "\"V1\"", 200),
            ("\"v1\"", "\"a\", \"b\" ,W/\"v1\"", 304),
            ("\"v1\"", "\"a\",\"b\"", 200),
            ("\"a,b\"", "\"a,b\"", 304),
            ("\"a,b\"", "\"a\", \"b\"", 200),
            ("\"v1\"", "*", 304),
            (nil, "*", 304),
            (nil, "\"v1\"", 200),
            ("\"v1\"", "v1", 200),
            ("\"v1\"", "\"v1", 200),
        ] as [(String?, String, Int)])
    func ifNoneMatchComparesWeakly(etag: String?, ifNoneMatch: String, status: Int) throws {
        let server = try Self.server(etag: etag)
        defer { server.shutdown() }

        let response = try ServerProbe.get(server, headers: ["If-None-Match": ifNoneMatch])
        #expect(response.status == status)
        #expect(response.body.count == (status == 304 ? 0 : 1000))
    }

    @Test(
        arguments: [
            (lastModified, 304),  // equal
            ("Sun, 06 Nov 1994 08:49:36 GMT", 200),  // a second older
            ("Sun, 06 Nov 1994 08:49:38 GMT", 304),  // a second newer
            ("Mon, 01 Jan 2024 00:00:00 GMT", 304),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 304),  // RFC 850
            ("Sun Nov  6 08:49:37 1994", 304),  // asctime
            ("Sun Nov  6 08:49:36 1994", 200),
            ("yesterday", 200),  // not a date: ignored
            ("Mon, 30 Feb 2024 00:00:00 GMT", 200),  // impossible: ignored
        ] as [(String, Int)])
    func ifModifiedSinceComparesDates(ifModifiedSince: String, status: Int) throws {
        let server = try Self.server(etag: "\"v1\"")
        defer { server.shutdown() }

        let response = try ServerProbe.get(server, headers: ["If-Modified-Since": ifModifiedSince])
        #expect(response.status == status)
        #expect(response.body.count == (status == 304 ? 0 : 1000))
    }

    @Test func ifModifiedSinceNeedsALastModified() throws {
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 10)))
        defer { server.shutdown() }

        let response = try ServerProbe.get(server, headers: ["If-Modified-Since": Self.lastModified])
        #expect(response.status == 200)
    }

    @Test func ifNoneMatchTakesPrecedenceOverIfModifiedSince() throws {
        let server = try Self.server(etag: "\"v1\"")
        defer { server.shutdown() }
        let newer = "Mon, 01 Jan 2024 00:00:00 GMT"
        let older = "Mon, 01 Jan 1990 00:00:00 GMT"

        let changed = try ServerProbe.get(server, headers: ["If-None-Match": "\"v2\"", "If-Modified-Since": newer])
        #expect(changed.status == 200)
        let same = try ServerProbe.get(server, headers: ["If-None-Match": "\"v1\"", "If-Modified-Since": older])
        #expect(same.status == 304)
    }

    @Test func conditionsComeBeforeRanges() throws {
        let server = try Self.server(etag: "\"v1\"")
        defer { server.shutdown() }

        let ranged = try ServerProbe.get(server, headers: ["If-None-Match": "\"v1\"", "Range": "bytes=10-19"])
        #expect(ranged.status == 304)
        #expect(ranged.header("content-range") == nil)
        let unsatisfiable = try ServerProbe.get(
            server,
            headers: ["If-Modified-Since": Self.lastModified, "Range": "bytes=5000-"]
        )
        #expect(unsatisfiable.status == 304)
        let modified = try ServerProbe.get(server, headers: ["If-None-Match": "\"v2\"", "Range": "bytes=10-19"])
        #expect(modified.status == 206)
        #expect(modified.body.count == 10)
    }

    @Test func headIsAnswered304Too() throws {
        let server = try Self.server(etag: "\"v1\"")
        defer { server.shutdown() }

        let connection = try RawHTTPConnection(port: server.port)
        try connection.sendRequest("/file", method: "HEAD", headers: ["If-None-Match": "\"v1\""])
        let head = try connection.readResponse(method: "HEAD")
        #expect(head.status == 304)
        #expect(head.header("etag") == "\"v1\"")
    }

    @Test func statusFaultsRedirectsAndAuthenticationComeFirst() throws {
        var faulty = Route(body: .pattern(count: 10))
        faulty.etag = "\"v1\""
        faulty.faults = [.status(503)]
        var moved = faulty
        moved.faults = []
        moved.redirect = (status: 302, location: "/elsewhere")
        var locked = faulty
        locked.faults = []
        locked.requiredAuthorization = "Basic dXNlcjpwYXNz"
        let server = try TestServer()
        defer { server.shutdown() }
        server.setRoute("/faulty", faulty)
        server.setRoute("/moved", moved)
        server.setRoute("/locked", locked)

        let matching = ["If-None-Match": "\"v1\""]
        #expect(try ServerProbe.get(server, "/faulty", headers: matching).status == 503)
        #expect(try ServerProbe.get(server, "/faulty", headers: matching).status == 304)
        #expect(try ServerProbe.get(server, "/moved", headers: matching).status == 302)
        #expect(try ServerProbe.get(server, "/locked", headers: matching).status == 401)
        let authorized = matching.merging(["Authorization": "Basic dXNlcjpwYXNz"]) { $1 }
        #expect(try ServerProbe.get(server, "/locked", headers: authorized).status == 304)
    }

    @Test func aChangingTagNeverMatchesAnEarlierOne() throws {
        var route = Route(body: .pattern(count: 10))
        route.etag = "\"v1\""
        route.etagChangesEveryRequest = true
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let first = try ServerProbe.get(server)
        #expect(first.header("etag") == "\"v1-0\"")
        let second = try ServerProbe.get(server, headers: ["If-None-Match": "\"v1-0\""])
        #expect(second.status == 200)
        #expect(second.header("etag") == "\"v1-1\"")
        #expect(try ServerProbe.get(server, headers: ["If-None-Match": "\"v1-2\""]).status == 304)
    }

    /// A route that answers `If-Range` in full, as some CDNs do: `Range` alone gets its range,
    /// `Range` with `If-Range` the whole body with the same validators, even when it matches.
    @Test func aRouteThatAnswersIfRangeInFullHonoursRangeAlone() throws {
        var route = Route(body: .pattern(count: 1000, seed: 18))
        route.etag = "\"v1\""
        route.lastModified = Self.lastModified
        route.answersIfRangeInFull = true
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let ranged = try ServerProbe.get(server, headers: ["Range": "bytes=600-"])
        #expect(ranged.status == 206)
        #expect(ranged.header("content-range") == "bytes 600-999/1000")
        for condition in ["\"v1\"", Self.lastModified, "\"v2\""] {
            let whole = try ServerProbe.get(server, headers: ["Range": "bytes=600-", "If-Range": condition])
            #expect(whole.status == 200)
            #expect(whole.body == Body.pattern(count: 1000, seed: 18).bytes(0..<1000))
            #expect(whole.header("etag") == "\"v1\"")
            #expect(whole.header("content-range") == nil)
        }
        #expect(server.requests("/file").map(\.bodyBytesSent) == [400, 1000, 1000, 1000])
    }
}
