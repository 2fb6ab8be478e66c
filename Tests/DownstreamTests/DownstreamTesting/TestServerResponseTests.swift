import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Full responses and ranges of the loopback test server. Most use `RawHTTPConnection` to see the exact bytes; a few use URLSession
/// to check that a real client agrees.
@Suite(.timeLimit(.minutes(1)))
struct TestServerResponseTests {
    // MARK: Full responses

    @Test func fullGetMatchesBodyThroughURLSession() async throws {
        let body = Body.pattern(count: 3_000_000, seed: 7)
        var route = Route(body: body)
        route.etag = "\"v1\""
        route.lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        route.contentType = "application/x-test"
        route.contentDisposition = "attachment; filename=\"a.bin\""
        route.extraHeaders = ["X-Extra": "yes"]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let (data, response) = try await ServerProbe.fetch(server.url("/file"))
        #expect(response.statusCode == 200)
        expectSameBytes(data, body.bytes(0..<body.count))
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "3000000")
        #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/x-test")
        #expect(response.value(forHTTPHeaderField: "Content-Disposition") == "attachment; filename=\"a.bin\"")
        #expect(response.value(forHTTPHeaderField: "X-Extra") == "yes")
        #expect(response.value(forHTTPHeaderField: "Date")?.hasSuffix(" GMT") == true)

        let file = try ServerProbe.temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try body.firstMismatch(inFileAt: file) == nil)
        #expect(server.requests("/file").last?.bodyBytesSent == body.count)
        #expect(server.totalBodyBytesSent == body.count)
    }

    @Test func rawGetMatchesBodyAndDefaults() throws {
        let body = Body.data(Data("hello, world".utf8))
        let server = try ServerProbe.server(serving: Route(body: body))
        defer { server.shutdown() }

        let response = try ServerProbe.get(server)
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
        let server = try ServerProbe.server(serving: route)
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
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 10)))
        defer { server.shutdown() }

        let missing = try ServerProbe.get(server, "/missing")
        #expect(missing.status == 404)
        #expect(!missing.body.isEmpty)
        let post = try ServerProbe.get(server, "/file", method: "POST", headers: ["Content-Length": "0"])
        #expect(post.status == 405)
        #expect(post.header("allow") == "GET, HEAD")
        #expect(server.requests().map(\.status) == [404, 405])
    }

    // MARK: Ranges

    @Test(
        arguments: [
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
        let server = try ServerProbe.server(serving: Route(body: body))
        defer { server.shutdown() }

        let response = try ServerProbe.get(server, headers: ["Range": header])
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
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 1000)))
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
            let response = try ServerProbe.get(server, path, headers: ["Range": "bytes=50-", "If-Range": ifRange])
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

        let unsupported = try ServerProbe.get(server, "/off", headers: ["Range": "bytes=10-"])
        #expect(unsupported.status == 200)
        #expect(unsupported.body.count == 100)
        #expect(unsupported.header("accept-ranges") == nil)

        let ignored = try ServerProbe.get(server, "/once", headers: ["Range": "bytes=10-"])
        #expect(ignored.status == 200)
        #expect(ignored.body.count == 100)
        #expect(ignored.header("accept-ranges") == "bytes")
        let honoured = try ServerProbe.get(server, "/once", headers: ["Range": "bytes=10-"])
        #expect(honoured.status == 206)
        #expect(honoured.body.count == 90)
    }

    @Test func rangeFaultsClaimWhatTheyAreTold() throws {
        let body = Body.pattern(count: 1000, seed: 9)
        var route = Route(body: body)
        route.faults = [.rangeNotSatisfiable, .contentRangeStart(100), .contentRangeTotal(5000), .status(503)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let refused = try ServerProbe.get(server, headers: ["Range": "bytes=10-"])
        #expect(refused.status == 416)
        #expect(refused.header("content-range") == "bytes */1000")

        let shifted = try ServerProbe.get(server, headers: ["Range": "bytes=500-"])
        #expect(shifted.status == 206)
        #expect(shifted.header("content-range") == "bytes 100-999/1000")
        #expect(shifted.body == body.bytes(100..<1000))

        let wrongTotal = try ServerProbe.get(server, headers: ["Range": "bytes=500-599"])
        #expect(wrongTotal.status == 206)
        #expect(wrongTotal.header("content-range") == "bytes 500-599/5000")
        #expect(wrongTotal.body == body.bytes(500..<600))

        let unavailable = try ServerProbe.get(server, headers: ["Range": "bytes=500-"])
        #expect(unavailable.status == 503)
        #expect(String(decoding: unavailable.body, as: UTF8.self).hasPrefix("503"))
        #expect(unavailable.header("content-range") == nil)

        #expect(try ServerProbe.get(server, headers: ["Range": "bytes=500-"]).status == 206)
    }

    @Test func etagChangesEveryRequestDefeatsIfRange() throws {
        var route = Route(body: .pattern(count: 100))
        route.etag = "\"v1\""
        route.etagChangesEveryRequest = true
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let first = try ServerProbe.get(server)
        #expect(first.header("etag") == "\"v1-0\"")
        let second = try ServerProbe.get(server, headers: ["Range": "bytes=10-", "If-Range": "\"v1-0\""])
        #expect(second.header("etag") == "\"v1-1\"")
        #expect(second.status == 200)
        #expect(second.body.count == 100)
    }
}
