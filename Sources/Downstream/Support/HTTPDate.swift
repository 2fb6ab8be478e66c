import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// HTTP-dates (RFC 9110, section 5.6.7), read and written by arithmetic, without a Foundation
/// formatter: a `Last-Modified` is read at every delivery, and a `DateFormatter` on Linux builds
/// an ICU formatter each time (a quarter of a small file's CPU time).
///
/// Written in the preferred form, `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate); read in the
/// three forms a recipient must accept.
package enum HTTPDate {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longWeekdays = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    ]
    static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The date of `text`, in any of the three forms (surrounding whitespace ignored); nil for
    /// anything else, an impossible date included.
    package static func parse(_ text: String) -> Date? {
        secondsSince1970(text.trimmingWhitespace).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// `date` as an IMF-fixdate, to the second below it.
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        return format(parts)
    }

    /// The current time, for example `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        return format(parts)
    }

    /// Broken-down UTC time as an IMF-fixdate.
    private static func format(_ parts: tm) -> String {
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        let clock = "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
        // Four digits, as the form writes them: year 1 is 0001.
        let year = String(parts.tm_year + 1900)
        let fourDigitYear = year.hasPrefix("-") ? year : String(repeating: "0", count: max(0, 4 - year.count)) + year
        return "\(weekday), \(twoDigits(parts.tm_mday)) \(month) \(fourDigitYear) \(clock) GMT"
    }

    /// The seconds since 1970 of an HTTP-date in any of the three forms a recipient must accept:
    /// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), the obsolete `Sunday, 06-Nov-94 08:49:37
    /// GMT` (RFC 850) and `Sun Nov  6 08:49:37 1994` (asctime). Nil for anything else, an
    /// impossible date included.
    ///
    /// A two-digit RFC 850 year is taken in the century that puts it at most 50 years after
    /// `currentYear`.
    package static func secondsSince1970(_ text: String, currentYear: Int64 = currentYear()) -> Int64? {
        secondsSince1970(text[...], currentYear: currentYear)
    }

    /// The seconds since 1970 of the HTTP-date `text`, as the `String` form above reads it.
    static func secondsSince1970(_ text: Substring, currentYear: Int64 = currentYear()) -> Int64? {
        // The preferred form, which servers send, is read from its bytes at their places (made
        // contiguous first: a bridged string may not be); the obsolete two split at spaces.
        var text = text
        if let seconds = text.withUTF8({ imfFixdateSeconds($0) }) {
            return seconds
        }
        let parts = text.split(separator: " ")
        let fields = rfc850Date(parts, currentYear: currentYear) ?? asctimeDate(parts)
        return fields?.secondsSince1970
    }

    /// The current year (UTC).
    package static func currentYear() -> Int64 {
        var seconds = time(nil)
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        return Int64(parts.tm_year) + 1900
    }

    /// The parts of a date as written, before they are checked.
    private struct Fields {
        var year: Int64
        var month: Int64
        var day: Int64
        /// `HH:MM:SS`.
        var time: Substring

        /// The seconds since 1970, or nil if the date or the time is impossible.
        var secondsSince1970: Int64? {
            // `HH:MM:SS`, read in place.
            let utf8 = time.utf8
            guard utf8.count == 8, utf8[utf8.index(utf8.startIndex, offsetBy: 2)] == UInt8(ascii: ":"),
                utf8[utf8.index(utf8.startIndex, offsetBy: 5)] == UInt8(ascii: ":"),
                let hour = number(time.prefix(2)), let minute = number(time.dropFirst(3).prefix(2)),
                let second = number(time.suffix(2))
            else { return nil }
            return Self.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }

        /// The seconds since 1970 of a date and time, or nil if they are impossible.
        static func seconds(
            year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64
        ) -> Int64? {
            guard hour < 24, minute < 60, second <= 60, (1...12).contains(month),
                (1...HTTPDate.daysIn(month: month, year: year)).contains(day)
            else { return nil }
            return HTTPDate.daysSince1970(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60
                + second
        }
    }

    /// The seconds of `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate) read from its 29 bytes; nil
    /// if they are not in that form or the date is impossible.
    private static func imfFixdateSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        func digits(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int64(bytes[index] - 0x30)
            }
            return value
        }
        func matches(_ name: String, at start: Int) -> Bool {
            name.utf8.elementsEqual(bytes[start..<(start + 3)])
        }
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20,
            bytes[11] == 0x20, bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"),
            bytes[25] == 0x20, matches("GMT", at: 26), weekdays.contains(where: { matches($0, at: 0) }),
            let monthIndex = months.firstIndex(where: { matches($0, at: 8) }),
            let day = digits(5..<7), let year = digits(12..<16), let hour = digits(17..<19),
            let minute = digits(20..<22), let second = digits(23..<25)
        else { return nil }
        return Fields.seconds(
            year: year, month: Int64(monthIndex) + 1, day: day, hour: hour, minute: minute, second: second)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`, split at spaces.
    private static func rfc850Date(_ parts: [Substring], currentYear: Int64) -> Fields? {
        guard parts.count == 4, parts[0].hasSuffix(","), longWeekdays.contains(where: { $0 == parts[0].dropLast() }),
            parts[3] == "GMT"
        else { return nil }
        let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].utf8.count == 2, let day = number(date[0]),
            let month = monthNumber(date[1]), date[2].utf8.count == 2, let twoDigitYear = number(date[2])
        else { return nil }
        let year = currentYear / 100 * 100 + twoDigitYear
        return Fields(
            year: year > currentYear + 50 ? year - 100 : year, month: month, day: day, time: parts[2])
    }

    /// `Sun Nov  6 08:49:37 1994`, split at spaces.
    private static func asctimeDate(_ parts: [Substring]) -> Fields? {
        guard parts.count == 5, weekdays.contains(where: { $0 == parts[0] }), let month = monthNumber(parts[1]),
            parts[2].utf8.count <= 2, let day = number(parts[2]), parts[4].utf8.count == 4,
            let year = number(parts[4])
        else { return nil }
        return Fields(year: year, month: month, day: day, time: parts[3])
    }

    /// A non-empty run of ASCII digits (at most 4 here); nil for anything else.
    private static func number(_ digits: Substring) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits.utf8 {
            guard byte >= 0x30, byte <= 0x39, value < 1_000_000 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    /// The month number (1-12) of a three-letter month name.
    private static func monthNumber(_ name: Substring) -> Int64? {
        months.firstIndex { $0 == name }.map { Int64($0) + 1 }
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year  // years counted from March
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
