import Foundation

/// Safe file names from what a server says.
///
/// A server controls `Content-Disposition` and the URL, so their names are treated as hostile:
/// only the last path component is kept, control characters are dropped, and so are format
/// characters (bidirectional controls such as U+202E, which make `invoice\u{202E}fdp.exe` display
/// as `invoiceexe.pdf`, zero-width characters) and line separators, leading dots and trailing
/// dots and spaces are removed, names reserved on Windows get a prefix, and the result is at most
/// 255 bytes of UTF-8 with its extension kept.
enum FileName {
    static let fallback = "download"
    static let maximumByteCount = 255

    /// The name for a response: `Content-Disposition` first, then the URL's last component.
    static func suggested(contentDisposition: String?, url: URL?) -> String {
        if let contentDisposition, let name = fromContentDisposition(contentDisposition) {
            let safe = sanitize(name)
            if safe != fallback || name == fallback { return safe }
        }
        if let url, let name = fromURL(url) {
            return sanitize(name)
        }
        return fallback
    }

    static func fromURL(_ url: URL) -> String? {
        let component = url.lastPathComponent
        guard !component.isEmpty, component != "/" else { return nil }
        return component
    }

    /// The `filename*` (RFC 8187, preferred) or `filename` parameter of a `Content-Disposition`.
    static func fromContentDisposition(_ header: String) -> String? {
        let parameters = ContentDispositionParameters(header)
        if let extended = parameters["filename*"], let decoded = decodeExtendedValue(extended) {
            return decoded
        }
        return parameters["filename"]
    }

    /// Makes `name` safe to use as one file name in any directory.
    static func sanitize(_ name: String) -> String {
        // Most names (a URL's last component) are printable ASCII with nothing to change: the
        // checks below, without taking the name apart (a queue of 100,000 sanitizes each).
        let isPlain = name.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "/") && byte != UInt8(ascii: "\\")
                && byte != UInt8(ascii: ":")
        }
        if isPlain, let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.last != UInt8(ascii: ".") {
            return trimmingEnd(truncated(isReservedOnWindows(name) ? "_" + name : name))
        }
        // Keep only the last component, whichever separator the server used. Split between
        // scalars, not characters: a combining mark after a separator, or a prepended mark
        // before it, makes one character of both, which hid the separator.
        let lastComponent =
            name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in lastComponent.unicodeScalars {
            switch scalar.value {
            case 0..<0x20, 0x7F, 0x80..<0xA0: continue  // control characters, NUL included
            case 0x3A: scalars.append("_")  // ":" is a separator on Apple file systems' APIs
            default:
                switch scalar.properties.generalCategory {
                // A name displays as it is: no bidirectional controls, zero-width or other
                // format characters, no line or paragraph separators.
                case .format, .lineSeparator, .paragraphSeparator: continue
                default: scalars.append(scalar)
                }
            }
        }
        // Leading dots (a hidden file) are found among scalars too: with a mark after it, a dot
        // is one character of both, and still a dot in the file system.
        let start = scalars.firstIndex { $0 != "." && !$0.properties.isWhitespace } ?? scalars.endIndex
        var result = trimmingEnd(String(scalars[start...]))
        guard !result.isEmpty else { return fallback }
        if isReservedOnWindows(result) { result = "_" + result }
        return trimmingEnd(truncated(result))
    }

    /// `name` without the dots and white space at its end, where a cut can leave some again (never
    /// all: a name to cut begins with neither).
    private static func trimmingEnd(_ name: String) -> String {
        var name = name
        while let last = name.last, last == "." || last.isWhitespace { name.removeLast() }
        return name
    }

    /// `name` cut to ``maximumByteCount`` UTF-8 bytes on a character boundary, extension kept.
    static func truncated(_ name: String, limit: Int = maximumByteCount) -> String {
        guard name.utf8.count > limit else { return name }
        let dot = name.lastIndex(of: ".")
        let suffix = dot.map { String(name[$0...]) } ?? ""
        let keepsSuffix = !suffix.isEmpty && suffix.utf8.count <= 16
        let stem = keepsSuffix ? String(name[..<dot!]) : name
        let budget = limit - (keepsSuffix ? suffix.utf8.count : 0)
        var cut = ""
        for character in stem {
            if cut.utf8.count + String(character).utf8.count > budget {
                // A first character longer than the budget (a letter under hundreds of combining
                // marks) is cut between its scalars: left out, it left no name.
                if cut.isEmpty {
                    for scalar in character.unicodeScalars {
                        guard cut.utf8.count + UTF8.width(scalar) <= budget else { break }
                        cut.unicodeScalars.append(scalar)
                    }
                }
                break
            }
            cut.append(character)
        }
        return cut + (keepsSuffix ? suffix : "")
    }

    /// `name (n).ext`, for a unique name beside an existing file.
    static func numbered(_ name: String, _ number: Int) -> String {
        // An extension is kept as `truncated` keeps one: up to 16 bytes with its dot. A longer one
        // is part of the name, cut with it (kept whole, it made the name longer than the limit).
        let pathExtension = URL(fileURLWithPath: name).pathExtension
        let ext = pathExtension.utf8.count < 16 ? pathExtension : ""
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let suffix = " (\(number))" + (ext.isEmpty ? "" : ".\(ext)")
        return truncated(stem, limit: maximumByteCount - suffix.utf8.count) + suffix
    }

    private static func isReservedOnWindows(_ name: String) -> Bool {
        // Every reserved stem has 3 or 4 characters: most names are ruled out without a copy.
        let stemLength =
            name.utf8.firstIndex(of: UInt8(ascii: ".")).map { name.utf8.distance(from: name.utf8.startIndex, to: $0) }
            ?? name.utf8.count
        guard stemLength == 3 || stemLength == 4 else { return false }
        // Up to the first "." scalar, as above: a mark after the dot makes one character of both.
        let stem = String(name.unicodeScalars.prefix { $0 != "." }).uppercased()
        if ["CON", "PRN", "AUX", "NUL"].contains(stem) { return true }
        if stem.count == 4, ["COM", "LPT"].contains(String(stem.prefix(3))), let digit = stem.last,
            ("1"..."9").contains(digit)
        {
            return true
        }
        return false
    }

    /// Decodes `charset'language'percent-encoded` (RFC 8187); UTF-8 and ISO-8859-1 only.
    private static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        var bytes: [UInt8] = []
        var iterator = parts[2].utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        switch charset {
        case "utf-8":
            // Valid UTF-8 only: decoding repairs bad sequences, and a repaired string encodes to
            // other bytes. (`String(validating:as:)` says the same from macOS 15 and iOS 18.)
            let decoded = String(decoding: bytes, as: UTF8.self)
            return decoded.utf8.elementsEqual(bytes) ? decoded : nil
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }
}

/// The parameters of a `Content-Disposition` header (`attachment; filename="a b.zip"`), with
/// quoted strings unescaped. Parameter names are lowercased.
struct ContentDispositionParameters {
    private var values: [String: String] = [:]

    init(_ header: String) {
        var index = header.startIndex
        // Skip the disposition type.
        while index < header.endIndex, header[index] != ";" { index = header.index(after: index) }
        while index < header.endIndex {
            index = header.index(after: index)  // past ";"
            let nameStart = index
            while index < header.endIndex, header[index] != "=", header[index] != ";" {
                index = header.index(after: index)
            }
            let name = header[nameStart..<index].trimmingWhitespace.lowercased()
            guard index < header.endIndex, header[index] == "=" else { continue }
            index = header.index(after: index)
            while index < header.endIndex, header[index] == " " { index = header.index(after: index) }
            var value = ""
            if index < header.endIndex, header[index] == "\"" {
                index = header.index(after: index)
                while index < header.endIndex, header[index] != "\"" {
                    if header[index] == "\\" {
                        index = header.index(after: index)
                        guard index < header.endIndex else { break }
                    }
                    value.append(header[index])
                    index = header.index(after: index)
                }
                if index < header.endIndex { index = header.index(after: index) }
                while index < header.endIndex, header[index] != ";" { index = header.index(after: index) }
            } else {
                let valueStart = index
                while index < header.endIndex, header[index] != ";" { index = header.index(after: index) }
                value = String(header[valueStart..<index].trimmingWhitespace)
            }
            if !name.isEmpty, values[name] == nil {
                values[name] = value
            }
        }
    }

    subscript(name: String) -> String? { values[name] }
}
