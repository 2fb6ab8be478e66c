import Testing

@testable import Downstream

/// `Content-Range` values from a hostile server parse to ranges the engine can use, or to nothing.
@Suite(Fuzzer.hangLimit)
struct ContentRangeFuzzTests {
    static let corpus = Fuzzer.Corpus(
        [
            "bytes 0-99/1000", "bytes */1000", "bytes 100-199/*", "bytes 0-0/1", "Bytes 5-5/6", "  bytes 0-9/10\t",
            "bytes */0", "bytes 0-1023/146515", "bytes 42-1233/*", "bytes 21010-47021/47022",
            "bytes 0-9223372036854775806/9223372036854775807", "bytes 9223372036854775806-9223372036854775806/*",
            // Hostile: the last byte an Int64 numbers, with no offset past it.
            "bytes 0-9223372036854775807/*", "bytes 9223372036854775807-9223372036854775807/9223372036854775807",
        ],
        tokens: ["bytes ", "bytes", "Bytes ", "*", "/", "-", "*/", " ", "\t"])

    @Test func parsedRangesAreOrderedInsideTheTotalAndTheirEndFits() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xC0_47E7, rounds: 100_000) { fuzz in
            let text = fuzz.text(Self.corpus)
            guard let parsed = ContentRange(text) else { return }
            fuzz.expect(parsed.range != nil || parsed.total != nil, "neither a range nor a total")
            if let total = parsed.total {
                fuzz.expect(total >= 0, "negative total \(total)")
            }
            if let range = parsed.range {
                fuzz.expect(range.lowerBound >= 0, "range \(range) starts before 0")
                fuzz.expect(
                    range.upperBound < Int64.max, "range \(range) ends where the offset past it does not fit")
                if let total = parsed.total {
                    fuzz.expect(range.upperBound < total, "range \(range) ends past the total \(total)")
                }
            }
            let isWholeFile = parsed.isWholeFile
            fuzz.expect(
                isWholeFile
                    == (parsed.range?.lowerBound == 0 && parsed.total.map { $0 - 1 } == parsed.range?.upperBound),
                "isWholeFile \(isWholeFile) for \(parsed)")
            // Written back in the canonical form, it reads the same.
            let canonical =
                "bytes \(parsed.range.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "*")/"
                + (parsed.total.map(String.init) ?? "*")
            fuzz.expect(ContentRange(canonical) == parsed, "\(canonical) does not read as \(parsed)")
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
