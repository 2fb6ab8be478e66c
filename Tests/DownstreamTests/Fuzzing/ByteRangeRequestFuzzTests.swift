import Testing

@testable import DownstreamTesting

/// Whatever `Range` a client sends the test server, a range it reads selects bytes inside the body,
/// or none (a `416`).
@Suite(Fuzzer.hangLimit)
struct ByteRangeRequestFuzzTests {
    static let corpus = Fuzzer.Corpus(
        [
            "bytes=0-99", "bytes=100-", "bytes=-500", "bytes=0-0", " Bytes = 5 - 9 ", "bytes=0-99,200-299", "items=0-1",
            "bytes=9223372036854775806-9223372036854775807", "bytes=-0", "bytes=10-5",
        ],
        tokens: ["bytes=", "bytes", "=", "-", ",", " ", "\t"])

    static let lengths: [Int64] = [0, 1, 2, 99, 100, 1000, .max - 1, .max]

    @Test func aRangeSelectsBytesInsideTheBodyOrNone() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xB17E_5, rounds: 100_000) { fuzz in
            let range = ByteRangeRequest(header: fuzz.text(Self.corpus))
            let length = fuzz.oneIn(2) ? fuzz.pick(Self.lengths) : Int64(fuzz.below(100_000))
            Self.check(range, length: length, &fuzz)
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    /// A parsed range is ordered, and selects a non-empty part of a body of `length` bytes where
    /// it can (where it starts, or the last bytes), or nothing.
    static func check(_ range: ByteRangeRequest?, length: Int64, _ fuzz: inout Fuzzer) {
        guard let range else { return }
        let selected = range.resolve(length: length)
        func what() -> String { "\(range) of \(length) bytes selects \(String(describing: selected))" }
        switch range {
        case .from(let start, let end):
            fuzz.expect(start >= 0 && (end.map { $0 >= start } ?? true) && range.isOpenEnded == (end == nil), what())
            if let selected {
                fuzz.expect(selected.lowerBound == start && selected.upperBound <= length, what())
                fuzz.expect(end.map { $0 == .max || selected.upperBound <= $0 + 1 } ?? true, what())
            } else {
                fuzz.expect(start >= length, what())
            }
        case .suffix(let suffixLength):
            fuzz.expect(suffixLength >= 0 && range.isOpenEnded, what())
            if let selected {
                fuzz.expect(selected.upperBound == length && selected.lowerBound >= 0, what())
            } else {
                fuzz.expect(suffixLength == 0 || length == 0, what())
            }
        }
        if let selected { fuzz.expect(!selected.isEmpty, what()) }
    }
}
