import Testing

@testable import DownstreamTesting

/// Whatever a client sends the test server, it finds the end of a head where the head ends, and a
/// head it parses holds what a response is planned from: a method, a path without its query,
/// lowercased header names, a body length that is not negative; and what the server reads of it
/// (ranges, preconditions) reads without trouble.
@Suite(Fuzzer.hangLimit)
struct HTTPRequestParserFuzzTests {
    static let heads = Fuzzer.Corpus(
        [
            "GET /file.bin HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nRange: bytes=100-\r\nIf-Range: \"v1\"\r\n\r\n",
            "HEAD /a?b=1#frag HTTP/1.0\r\nConnection: close\r\n\r\n",
            "GET http://127.0.0.1:8080/x?token=abc HTTP/1.1\r\nHost: x\r\nIf-None-Match: W/\"v1\", \"v2\"\r\n"
                + "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
            "POST /upload HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello",
            "\r\n\r\nGET / HTTP/1.1\r\nX-Dup: a\r\nx-dup: b\r\nConnection: keep-alive, Close\r\n\r\n",
            "GET / HTTP/1.1\r\nRange: bytes=-500\r\nIf-None-Match: *\r\n\r\nGET /next HTTP/1.1\r\n\r\n",
            "GET /%E2%82%AC?q=%00 HTTP/1.1\r\nAuthorization: Basic dXNlcjpwYXNz\r\nRange: bytes = 0-0 \r\n\r\n",
        ],
        tokens: [
            "\r\n", "\r\n\r\n", ": ", ":", "GET ", "HEAD ", " HTTP/1.1", "HTTP/1.", "Range: bytes=", "If-Range: ",
            "If-None-Match: ", "If-Modified-Since: ", "Content-Length: ", "Connection: close", "?", "#", "://",
        ])

    /// The index just past the first `\r\n\r\n` at or after `start`, as the standard library
    /// finds it.
    static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
        buffer[min(start, buffer.count)...].firstRange(of: [13, 10, 13, 10])?.upperBound
    }

    @Test func headsEndWhereTheyEndAndParseToWhatAResponseIsPlannedFrom() async throws {
        let fuzz = try await Fuzzer.run(seed: 0x4EAD_E4D, rounds: 100_000) { fuzz in
            let buffer = fuzz.bytes(Self.heads)
            let start = fuzz.oneIn(2) ? 0 : fuzz.below(buffer.count + 2) - 1
            let end = HTTPRequestParser.headEnd(in: buffer, searchingFrom: start)
            fuzz.expect(end == Self.headEnd(in: buffer, from: max(start, 0)), "head end \(String(describing: end))")
            guard let head = HTTPRequestParser.parse(buffer[..<(end ?? buffer.count)]) else { return }
            func what() -> String { "\(head)" }
            fuzz.expect(
                !head.method.isEmpty && head.method.allSatisfy { $0.isLetter || $0 == "-" || $0 == "_" },
                "method: \(what())")
            fuzz.expect(
                !head.path.contains("?") && !head.path.contains("#")
                    && head.path == HTTPRequestParser.path(of: head.target),
                "path: \(what())")
            if let query = head.query {
                fuzz.expect(!query.isEmpty && !query.contains("#") && head.target.contains(query), "query: \(what())")
            }
            fuzz.expect(
                head.headers.keys.allSatisfy {
                    !$0.isEmpty && $0 == $0.lowercased() && !$0.contains(" ") && !$0.contains("\t")
                },
                "header names: \(what())")
            fuzz.expect(head.contentLength >= 0, "body length: \(what())")
            _ = head.wantsKeepAlive
            if let range = head.header("range") {
                ByteRangeRequestFuzzTests.check(ByteRangeRequest(header: range), length: Int64(fuzz.below(2000)), &fuzz)
            }
            let etag = fuzz.pick([nil, "\"v1\"", "W/\"v1\"", "\"v2\""])
            let lastModified = fuzz.pick([nil, "Sun, 06 Nov 1994 08:49:37 GMT", "not a date"])
            _ = NotModified.applies(to: head, etag: etag, lastModified: lastModified)
            if let condition = head.header("if-range") {
                let matches = IfRange.matches(condition, etag: etag, lastModified: lastModified)
                fuzz.expect(!matches || !condition.contains("W/"), "a weak If-Range matched: \(what())")
            }
            if let condition = head.header("if-none-match"), let tags = EntityTag.list(condition) {
                fuzz.expect(
                    tags.allSatisfy { $0.opaque.first == "\"" && $0.opaque.last == "\"" && $0.opaque.count >= 2 },
                    "entity tags \(tags): \(what())")
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
