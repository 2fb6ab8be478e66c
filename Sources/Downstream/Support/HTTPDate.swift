import Foundation

/// HTTP-dates in their preferred form (RFC 9110, section 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        formatter().date(from: String(text.trimmingWhitespace))
    }

    static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// A new formatter each time: they are not safe to share between threads, and dates are
    /// rare (a `Retry-After`, a conditional request).
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
