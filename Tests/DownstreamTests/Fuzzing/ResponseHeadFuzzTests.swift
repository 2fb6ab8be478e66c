import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import Downstream

/// Whatever headers a server sends, the head a download decides on holds only values it can use:
/// lengths and delays that are not negative, ranges inside the file, digests of the right length.
@Suite(Fuzzer.hangLimit)
struct ResponseHeadFuzzTests {
    static let retryAfter = Fuzzer.Corpus(
        [
            "120", "0", " 5 ", "Fri, 31 Dec 1999 23:59:59 GMT", "Sun, 06 Nov 1994 08:49:37 GMT",
            "Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Fri, 31 Dec 9999 23:59:59 GMT", "9223372036854775807", "1.5", "-1",
        ],
        tokens: ["GMT", ", ", ":", "Dec", "Fri"])

    static let lengths = Fuzzer.Corpus(["1000", "0", " 47022 ", "9223372036854775807", "-1", "+5", "1e3"])

    static let etags = Fuzzer.Corpus([
        "\"v1\"", "W/\"v1\"", "\"\"", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"", "*",
    ])

    static let words = Fuzzer.Corpus(["gzip", "identity", "", " Identity ", "br", "x-gzip, identity"])

    static let mediaTypes = Fuzzer.Corpus(
        [
            "application/octet-stream", "text/html; charset=utf-8", " Video/MP4 ", "multipart/byteranges; boundary=x",
            ";", "",
        ],
        tokens: ["/", ";", "*/*", "text/*", "charset="])

    static let challenges = Fuzzer.Corpus(["Basic realm=\"x\"", "Bearer", "Digest realm=\"a\", qop=\"auth\""])

    /// Each header a head reads, with what it holds.
    static let headers: [(String, Fuzzer.Corpus)] = [
        ("Content-Range", ContentRangeFuzzTests.corpus), ("Content-Length", lengths), ("ETag", etags),
        ("Last-Modified", HTTPDateFuzzTests.corpus), ("Content-Encoding", words),
        ("Content-Disposition", FileNameFuzzTests.dispositions), ("Retry-After", retryAfter),
        ("Content-Type", mediaTypes), ("Repr-Digest", ServerDigestFuzzTests.structured),
        ("Content-Digest", ServerDigestFuzzTests.structured), ("Digest", ServerDigestFuzzTests.instance),
        ("x-goog-hash", ServerDigestFuzzTests.instance), ("Content-MD5", ServerDigestFuzzTests.bare),
        ("x-amz-checksum-sha256", ServerDigestFuzzTests.bare), ("x-amz-request-id", words),
        ("WWW-Authenticate", challenges),
    ]

    static let statuses = [200, 200, 206, 206, 206, 206, 304, 416, 416, 301, 401, 404, 429, 500, 503, 0, -1, 999]

    static let urls = ["https://example.com/file.bin", "http://[::1]:8080/a%20b?x=1", "https://example.com/"].map {
        URL(string: $0)
    }

    /// A response with some of the headers a head reads (each one time in `oneIn`,
    /// `Content-Range` one time in `rangeOneIn`), in any case, any of them twice in two cases, and
    /// unknown ones.
    static func response(_ fuzz: inout Fuzzer, oneIn: Int = 6, rangeOneIn: Int = 6) -> ServerResponse {
        var headers: [String: String] = [:]
        for (name, corpus) in Self.headers where fuzz.oneIn(name == "Content-Range" ? rangeOneIn : oneIn) {
            headers[fuzz.oneIn(4) ? name : Self.recased(name, &fuzz)] = fuzz.text(corpus)
            if fuzz.oneIn(16) { headers[name.uppercased()] = fuzz.text(corpus) }
        }
        if fuzz.oneIn(8) { headers[fuzz.text(Self.words)] = fuzz.text(Self.words) }
        let status = fuzz.oneIn(16) ? Int(truncatingIfNeeded: fuzz.random.next()) : fuzz.pick(Self.statuses)
        return ServerResponse(url: fuzz.pick(Self.urls), statusCode: status, headers: headers)
    }

    /// `name` (ASCII) with each letter's case drawn.
    static func recased(_ name: String, _ fuzz: inout Fuzzer) -> String {
        var bytes = Array(name.utf8)
        for index in bytes.indices where fuzz.oneIn(2) {
            bytes[index] ^= bytes[index] >= UInt8(ascii: "A") ? 0x20 : 0
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The values of the headers of `response`, by their names lowercased.
    static func values(in response: ServerResponse) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for (name, value) in response.headers { values[name.lowercased(), default: []].append(value) }
        return values
    }

    @Test func aRetryAfterIsNeverNegative() async throws {
        let fuzz = try await Fuzzer.run(seed: 0x4E7_4A7E4, rounds: 100_000) { fuzz in
            let text = fuzz.text(Self.retryAfter)
            // Any moment a clock may say, from before 1970 to after 9999.
            let now = Date(timeIntervalSince1970: Double(Int64(truncatingIfNeeded: fuzz.random.next()) >> 26))
            guard let delay = ResponseHead.parseRetryAfter(text, now: now) else { return }
            fuzz.expect(delay >= .zero, "\(delay) at \(now.timeIntervalSince1970)")
            if let seconds = Int(text.trimmingWhitespace) {
                fuzz.expect(delay == .seconds(seconds), "\(delay) for \(seconds) seconds")
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    @Test func aHeadHoldsOnlyValuesADownloadCanUse() async throws {
        let fuzz = try await Fuzzer.run(seed: 0x4EAD, rounds: 100_000) { fuzz in
            var response = Self.response(&fuzz)
            // As URLSession gives them, now and then (the system-task engine reads those).
            if fuzz.oneIn(8), let url = response.url,
                let converted = HTTPURLResponse(
                    url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: response.headers)
            {
                response = ServerResponse(converted)
            }
            let head = ResponseHead(response)
            func what() -> String { "\(response.statusCode) \(response.headers) read as \(head)" }
            fuzz.expect(head.status == response.statusCode && head.url == response.url, what())
            let values = Self.values(in: response)
            let ranges = values["content-range"] ?? []
            fuzz.expect(head.hasContentRange == !ranges.isEmpty, "Content-Range seen or not: \(what())")
            if let contentRange = head.contentRange {
                fuzz.expect(ranges.contains { ContentRange($0) == contentRange }, "Content-Range: \(what())")
                if let total = contentRange.total { fuzz.expect(total >= 0, "negative total: \(what())") }
                if let range = contentRange.range {
                    fuzz.expect(
                        range.lowerBound >= 0 && range.upperBound < (contentRange.total ?? .max),
                        "range outside the file: \(what())")
                }
            }
            if let length = head.contentLength { fuzz.expect(length >= 0, "negative Content-Length: \(what())") }
            if let delay = head.retryAfter { fuzz.expect(delay >= .zero, "negative Retry-After: \(what())") }
            ServerDigestFuzzTests.check(head.serverDigests, &fuzz, what())
            let etags = values["etag"] ?? []
            let dates = values["last-modified"] ?? []
            fuzz.expect(head.validator.etag.map { etags.contains($0) } ?? etags.isEmpty, "ETag: \(what())")
            fuzz.expect(
                head.validator.lastModified.map { dates.contains($0) } ?? dates.isEmpty, "Last-Modified: \(what())")
            _ = head.isEncoded
            if let mediaType = response.mediaType {
                fuzz.expect(
                    !mediaType.isEmpty && !mediaType.contains(";") && mediaType == mediaType.lowercased()
                        && mediaType == mediaType.trimmingCharacters(in: .whitespaces),
                    "media type \(mediaType): \(what())")
            }
            // Header names are ASCII (RFC 9110): their case is not that of other scripts.
            for name in response.headers.keys where name.utf8.allSatisfy({ $0 < 0x80 }) {
                let value = response.value(forHTTPHeaderField: name.uppercased())
                fuzz.expect(
                    value.map { values[name.lowercased()]?.contains($0) == true } == true,
                    "\(name.uppercased()) is \(value ?? "missing"): \(what())")
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
