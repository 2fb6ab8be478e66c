import Foundation

/// A parsed `Content-Range` header of a byte range (RFC 9110, section 14.4).
///
/// `bytes 100-199/1000` has ``range`` 100...199 and ``total`` 1000; `bytes 100-199/*` has no
/// total; `bytes */1000` (the form sent with 416) has no range.
struct ContentRange: Equatable, Sendable {
    var range: ClosedRange<Int64>?
    var total: Int64?

    init(range: ClosedRange<Int64>?, total: Int64?) {
        self.range = range
        self.total = total
    }

    /// Whether the range is the whole file: from its first byte to its last.
    var isWholeFile: Bool {
        guard let range, let total else { return false }
        return range.lowerBound == 0 && range.upperBound + 1 == total
    }

    init?(_ headerValue: String) {
        let value = headerValue.trimmingWhitespace
        guard value.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = value.dropFirst("bytes ".count).trimmingWhitespace
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }

        if parts[1] == "*" {
            total = nil
        } else {
            guard let total = Int64(parts[1]), total >= 0 else { return nil }
            self.total = total
        }

        if parts[0] == "*" {
            guard total != nil else { return nil }
            range = nil
        } else {
            let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
            // The offset past the last byte is where the body ends in the file: it must be one.
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
                first >= 0, first <= last, last < Int64.max
            else { return nil }
            if let total, last >= total { return nil }
            range = first...last
        }
    }
}
