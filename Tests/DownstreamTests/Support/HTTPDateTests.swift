@testable import Downstream
import Foundation
import Testing

/// HTTP-dates are read in the three forms RFC 9110 makes recipients accept and written in the
/// preferred one, by arithmetic (no formatter).
struct HTTPDateTests {
    /// RFC 9110's own example: 1994-11-06 08:49:37 UTC.
    static let example: Int64 = 784_111_777

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ])
    func theThreeFormsReadAsTheSameInstant(text: String) {
        #expect(HTTPDate.secondsSince1970(text, currentYear: 2026) == Self.example)
        #expect(HTTPDate.parse(" \(text)\t") == Date(timeIntervalSince1970: TimeInterval(Self.example)))
    }

    @Test(arguments: [
        "Sun, 30 Feb 2026 08:49:37 GMT",  // no such day
        "Sun, 06 Nov 1994 24:00:00 GMT",  // no such hour
        "Sun, 06 Nov 1994 08:49:37 UTC",  // not GMT
        "Sun, 6 Nov 1994 08:49:37 GMT",  // one-digit day
        "Sun, 06 Now 1994 08:49:37 GMT",  // no such month
        "Sun, 06 Nov 1994 08:49 GMT",  // no seconds
        "Sun, 06 Nov 1994 08:49:3x GMT",
        "",
    ])
    func anythingElseIsNoDate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func aTwoDigitYearIsAtMostFiftyYearsAhead() {
        // In 2026, "76" is 2076 (50 years ahead) and "77" is 1977 (2077 would be 51).
        let y2076 = HTTPDate.secondsSince1970("Wednesday, 01-Jan-76 00:00:00 GMT", currentYear: 2026)
        let y1977 = HTTPDate.secondsSince1970("Saturday, 01-Jan-77 00:00:00 GMT", currentYear: 2026)
        #expect(y2076 == 3_345_062_400)
        #expect(y1977 == 220_924_800)
    }

    @Test func aDateIsWrittenAsAnIMFFixdateAndReadBack() {
        #expect(
            HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(Self.example) + 0.75))
                == "Sun, 06 Nov 1994 08:49:37 GMT")
        // A leap day, and the first second of a year.
        for seconds: Int64 in [951_782_400, 1_767_225_600, 0] {
            let text = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(HTTPDate.secondsSince1970(text) == seconds, "\(text)")
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    /// A year before 1000 is written with four digits, as it is read (a server written in Go
    /// sends its zero time as `Mon, 01 Jan 0001 00:00:00 GMT`).
    @Test func aYearBeforeOneThousandIsWrittenWithFourDigits() {
        for (text, seconds): (String, Int64) in [
            ("Mon, 01 Jan 0001 00:00:00 GMT", -62_135_596_800), ("Mon, 01 Jan 0970 00:00:00 GMT", -31_556_908_800),
        ] {
            #expect(HTTPDate.secondsSince1970(text) == seconds)
            #expect(HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(seconds))) == text)
        }
    }
}
