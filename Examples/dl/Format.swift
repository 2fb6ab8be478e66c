import Foundation

/// How `dl` writes sizes, speeds, times and bars: short, and of steady width, so that a line
/// redrawn in place does not jitter.
enum Format {
    private static let units = ["kB", "MB", "GB", "TB", "PB", "EB"]

    /// Bytes in decimal units with three significant digits: `999 B`, `1.50 kB`, `12.3 MB`,
    /// `123 GB`. At most 7 characters.
    static func bytes(_ count: Int64) -> String {
        guard count >= 1000 else { return "\(max(0, count)) B" }
        var value = Double(count) / 1000
        var unit = 0
        // Rounded as printed: 999,999 bytes is 1.00 MB, not 1000 kB.
        while value >= 999.5, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let digits: String
        if (value * 100).rounded() < 1000 {
            digits = String(format: "%.2f", value)
        } else if (value * 10).rounded() < 1000 {
            digits = String(format: "%.1f", value)
        } else {
            digits = String(format: "%.0f", value)
        }
        return "\(digits) \(units[unit])"
    }

    /// Bytes per second: `1.50 MB/s`. At most 9 characters.
    static func speed(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0 B/s" }
        return bytes(Int64(min(bytesPerSecond, Double(Int64.max / 2)))) + "/s"
    }

    /// `time` in seconds.
    static func seconds(_ time: Duration) -> Double {
        Double(time.components.seconds) + Double(time.components.attoseconds) / 1e18
    }

    /// A time taken: tenths of a second below 10 seconds (`0.3s`, `4.5s`), else as ``duration(_:)``.
    static func elapsed(_ time: Duration) -> String {
        let seconds = Format.seconds(time)
        guard seconds < 9.95 else { return duration(time) }
        return String(format: "%.1fs", max(0, seconds))
    }

    /// A time to go, to the second below a minute, else in its two largest units: `5s`, `3m05s`,
    /// `1h02m`, `3d04h`. At most 6 characters (up to 99 days; `>99d` beyond).
    static func duration(_ duration: Duration) -> String {
        let total = max(0, Int64(duration.components.seconds) + (duration.components.attoseconds > 0 ? 1 : 0))
        let (days, hours, minutes, seconds) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        if days > 99 { return ">99d" }
        if days > 0 { return "\(days)d" + twoDigits(hours) + "h" }
        if hours > 0 { return "\(hours)h" + twoDigits(minutes) + "m" }
        if minutes > 0 { return "\(minutes)m" + twoDigits(seconds) + "s" }
        return "\(seconds)s"
    }

    /// A whole percentage, rounded down so that 100% means done: `45%`.
    static func percent(_ fraction: Double) -> String {
        "\(Int((min(1, max(0, fraction)) * 100).rounded(.down)))%"
    }

    /// A bar of `width` characters, brackets included: `[=====>    ]`; without a fraction, an
    /// empty one.
    static func bar(_ fraction: Double?, width: Int) -> String {
        let inside = max(0, width - 2)
        guard let fraction else { return "[" + String(repeating: " ", count: inside) + "]" }
        let filled = Int((min(1, max(0, fraction)) * Double(inside)).rounded(.down))
        let body =
            filled >= inside
            ? String(repeating: "=", count: inside)
            : String(repeating: "=", count: max(0, filled - 1)) + (filled > 0 ? ">" : "")
                + String(repeating: " ", count: inside - filled)
        return "[" + body + "]"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

/// Terminal columns of text.
enum Columns {
    /// The columns `text` takes on a terminal: 2 for East Asian wide characters and emoji, 0
    /// for combining marks and other zero-width characters, else 1.
    static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// `text` cut to at most `limit` columns, with `…` in the middle when it is cut (a file name
    /// keeps its start and its extension).
    static func truncate(_ text: String, to limit: Int) -> String {
        guard width(text) > limit else { return text }
        guard limit > 1 else { return limit == 1 ? "…" : "" }
        let characters = Array(text)
        let tailBudget = (limit - 1) / 3
        var tail: [Character] = []
        var tailWidth = 0
        for character in characters.reversed() {
            let columns = width(String(character))
            if tailWidth + columns > tailBudget { break }
            tail.insert(character, at: 0)
            tailWidth += columns
        }
        var head = ""
        var headWidth = 0
        for character in characters {
            let columns = width(String(character))
            if headWidth + columns > limit - 1 - tailWidth { break }
            head.append(character)
            headWidth += columns
        }
        return head + "…" + String(tail)
    }

    /// `text` padded with spaces to `columns`, on the right (`leading: false`) or the left.
    static func pad(_ text: String, to columns: Int, leading: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, columns - width(text)))
        return leading ? padding + text : text + padding
    }
}
