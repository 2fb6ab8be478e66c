import Testing

@testable import Downstream

/// Whatever status line a server sends, the libcurl transport reads the three digits after its
/// first space as its status, or 0.
@Suite(Fuzzer.hangLimit)
struct CurlStatusLineFuzzTests {
    static let corpus = Fuzzer.Corpus(
        [
            "HTTP/1.1 206 Partial Content", "HTTP/1.1 200 OK", "HTTP/2 304", "HTTP/1.0 100 Continue", "HTTP/3 200 ",
            "HTTP/1.1 404 Not Found", "HTTP/1.1 2000 Too Long", "HTTP/1.1 20", "HTTP/1.1 OK", "HTTP/1.1",
            "HTTP/1.1 099 Low", "HTTP/1.1  200 Two Spaces",
        ],
        tokens: ["HTTP/", "1.1", " ", "200", "\r\n", "\t"])

    /// The status the way RFC 9112 writes a status line, without its shortcuts: the bytes after
    /// the first space, up to the first that is not a digit, when there are exactly three.
    static func status(of line: [UInt8]) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        let digits = line[(space + 1)...].prefix { (0x30...0x39).contains($0) }
        guard digits.count == 3 else { return 0 }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    @Test func theStatusIsTheThreeDigitsAfterTheFirstSpaceOrZero() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xC0_4100, rounds: 100_000) { fuzz in
            let line = fuzz.bytes(Self.corpus)
            let status = line.withUnsafeBytes { CurlRequest.statusCode(ofStatusLine: $0) }
            fuzz.expect((0...999).contains(status), "status \(status)")
            fuzz.expect(status == Self.status(of: line), "status \(status), not \(Self.status(of: line))")
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
