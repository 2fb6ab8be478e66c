import Foundation
import Testing

@testable import Downstream

/// Whatever a server sends as an HTTP-date (`Last-Modified`, `Retry-After`), a date read from it
/// is written back as a date that reads the same.
@Suite(Fuzzer.hangLimit)
struct HTTPDateFuzzTests {
    static let corpus = Fuzzer.Corpus(
        [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Tue, 29 Feb 2000 00:00:00 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
            "Thu, 01 Jan 1970 00:00:00 GMT", "Wed, 31 Dec 1969 23:59:60 GMT", "Saturday, 01-Jan-77 00:00:00 GMT",
            "Wednesday, 01-Jan-76 00:00:00 GMT", "Thu Jan  1 00:00:00 1970", "Mon Feb 29 12:00:00 2016",
            "Sat Jan 01 00:00:00 0000", " Sun, 06 Nov 1994 08:49:37 GMT\t",
        ],
        tokens: [
            "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sunday", "Wednesday", "Jan", "Feb", "Nov", "Dec", "GMT",
            "UTC", ", ", ":", "-", "  ", "00", "59", "60", "24", "29", "31", "1994", "0000", "94",
        ])

    /// Seconds since 1970 of 0000-01-01 00:00:00 and of 9999-12-31 23:59:59: the dates with four
    /// digits to their year, which an IMF-fixdate can write.
    static let writable: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    @Test func aDateThatReadsIsWrittenAsOneThatReadsTheSame() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xDA7E, rounds: 100_000) { fuzz in
            let text = fuzz.text(Self.corpus)
            // (The leap second that ends 9999 is the first second of 10000, which has no HTTP-date.)
            if let date = HTTPDate.parse(text), Self.writable.contains(Int64(date.timeIntervalSince1970)) {
                let formatted = HTTPDate.format(date)
                fuzz.expect(
                    date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970, "\(date) has a fraction")
                fuzz.expect(HTTPDate.parse(formatted) == date, "\(date) is written \(formatted), which reads otherwise")
            }
            // The current year decides the century of a two-digit year: any that a clock gives.
            let currentYear =
                fuzz.oneIn(5)
                ? Int64(Int32.min) + 1900 + Int64(fuzz.below(Int(UInt32.max))) : 1970 + Int64(fuzz.below(200))
            if let seconds = HTTPDate.secondsSince1970(text, currentYear: currentYear), Self.writable.contains(seconds)
            {
                let formatted = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
                fuzz.expect(
                    HTTPDate.secondsSince1970(formatted, currentYear: currentYear) == seconds,
                    "\(seconds) (in \(currentYear)) is written \(formatted), which reads otherwise")
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
