/// The single byte range of a `Range` request header, before it meets the body length.
enum ByteRangeRequest: Equatable, Sendable {
    /// `bytes=N-` (end `nil`) or `bytes=N-M` (inclusive end).
    case from(start: Int64, end: Int64?)
    /// `bytes=-S`: the last `S` bytes.
    case suffix(length: Int64)

    /// Parses a `Range` header value; `nil` for other units, several ranges, or bad syntax,
    /// all of which a server ignores.
    init?(header: String) {
        let value = header.trimmingHTTPWhitespace()
        guard let equals = value.firstIndex(of: "=") else { return nil }
        guard value[..<equals].trimmingHTTPWhitespace().lowercased() == "bytes" else { return nil }
        let spec = value[value.index(after: equals)...].trimmingHTTPWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingHTTPWhitespace()
        let last = spec[spec.index(after: dash)...].trimmingHTTPWhitespace()
        if first.isEmpty {
            guard let length = Int64(digits: last) else { return nil }
            self = .suffix(length: length)
        } else {
            guard let start = Int64(digits: first) else { return nil }
            if last.isEmpty {
                self = .from(start: start, end: nil)
            } else {
                guard let end = Int64(digits: last), end >= start else { return nil }
                self = .from(start: start, end: end)
            }
        }
    }

    /// The offsets this range selects in a body of `length` bytes, or `nil` when it is not
    /// satisfiable (a `416`).
    func resolve(length: Int64) -> Range<Int64>? {
        switch self {
        case .from(let start, let end):
            guard start < length else { return nil }
            let last = min(end ?? (length - 1), length - 1)
            return start..<(last + 1)
        case .suffix(let suffixLength):
            guard suffixLength > 0, length > 0 else { return nil }
            return max(0, length - suffixLength)..<length
        }
    }

    /// Whether the range runs to the end of the body (`bytes=N-` or a suffix).
    var isOpenEnded: Bool {
        switch self {
        case .from(_, let end): end == nil
        case .suffix: true
        }
    }
}
