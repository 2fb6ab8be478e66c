import Foundation

/// Finds and parses request heads in the bytes read from a connection.
enum HTTPRequestParser {
    /// The largest accepted head (request line and headers); larger ones get `431`.
    static let maximumHeadSize = 64 * 1024

    /// The index just past the first `\r\n\r\n` in `buffer`, searching from `start`.
    static func headEnd(in buffer: [UInt8], searchingFrom start: Int) -> Int? {
        var index = max(start, 0)
        while index + 3 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13
                && buffer[index + 3] == 10
            {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// Parses a head ending in `\r\n\r\n`; `nil` if it is not a valid HTTP/1.x request.
    static func parse(_ head: ArraySlice<UInt8>) -> HTTPRequestHead? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first, first.isEmpty {  // tolerate blank lines before a request
            lines = lines.dropFirst()
        }
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }),
            parts[2].hasPrefix("HTTP/1."), let minor = Int(parts[2].dropFirst(7))
        else { return nil }

        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                return nil
            }
            let key = name.lowercased()
            let value = String(line[line.index(after: colon)...].trimmingHTTPWhitespace())
            if let existing = headers[key] {
                headers[key] = existing + ", " + value
            } else {
                headers[key] = value
            }
        }
        if let length = headers["content-length"], Int64(digits: length.trimmingHTTPWhitespace()) == nil {
            return nil
        }

        let target = String(parts[1])
        return HTTPRequestHead(
            method: String(parts[0]),
            target: target,
            path: path(of: target),
            minorVersion: minor,
            headers: headers
        )
    }

    /// The path of a request target in origin form (`/a?b`) or absolute form (`http://h/a`).
    ///
    /// Delimiters are found among scalars: a combining mark after one (or a prepended one before
    /// it) makes one character of both.
    static func path(of target: String) -> String {
        var rest = Substring(target)
        if let scheme = rest.range(of: "://"), !rest.hasPrefix("/") {
            rest = rest[scheme.upperBound...]
            rest = rest.unicodeScalars.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let end = rest.unicodeScalars.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            rest = rest[..<end]
        }
        return String(rest)
    }

    /// The query of a request target (`b` in `/a?b#c`); `nil` when absent or empty. Delimiters
    /// are found among scalars, as in ``path(of:)``.
    static func query(of target: String) -> String? {
        let beforeFragment = target.unicodeScalars.prefix { $0 != "#" }
        guard let mark = beforeFragment.firstIndex(of: "?") else { return nil }
        let query = beforeFragment[beforeFragment.index(after: mark)...]
        return query.isEmpty ? nil : String(query)
    }
}
