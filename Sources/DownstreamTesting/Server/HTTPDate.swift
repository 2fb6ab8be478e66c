#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Formats `Date` header values (IMF-fixdate) without Foundation formatters.
enum HTTPDate {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The current time, for example `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        return format(parts)
    }

    /// Formats broken-down UTC time.
    static func format(_ parts: tm) -> String {
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        let clock = "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
        return "\(weekday), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(clock) GMT"
    }
}
