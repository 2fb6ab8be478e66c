import Foundation

/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110, section
/// 11.6.1): an authentication scheme with its parameters, or with a token68.
///
/// A field may hold several challenges, and a response's several fields of that name arrive
/// joined with `", "` (by both transports): ``parse(_:)`` reads them all, in order. It reads any
/// text in one pass without failing: what does not follow the grammar is skipped up to the next
/// comma, and a quoted string that never ends ends the field.
struct HTTPChallenge: Sendable, Hashable {
    /// A parameter of a challenge.
    struct Parameter: Sendable, Hashable {
        /// Its name, lowercased (names are case-insensitive): a token, never empty.
        var name: String
        /// Its value, unquoted (a quoted string's escapes undone); free of control characters.
        var value: String
    }

    /// The scheme as the server names it (`Digest`, `Basic`, `Negotiate`): a token, never empty.
    var scheme: String
    /// The parameters, in order.
    var parameters: [Parameter] = []
    /// The token68 that follows the scheme instead of parameters (`Negotiate YII…`), if any.
    var token68: String?

    /// Whether the scheme is `name` (compared without case).
    func isScheme(_ name: String) -> Bool {
        scheme.caseInsensitiveCompare(name) == .orderedSame
    }

    /// The value of the first parameter named `name` (lowercase), if any.
    func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The challenges of `field`, in order.
    static func parse(_ field: String) -> [HTTPChallenge] {
        Array(field.utf8).withUnsafeBufferPointer { bytes in
            var reader = Reader(bytes)
            return reader.challenges()
        }
    }
}

extension HTTPChallenge {
    /// Reads challenges from a field's bytes, one pass, each step consuming at least one byte.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { position >= bytes.count }
        var next: UInt8? { isAtEnd ? nil : bytes[position] }

        mutating func challenges() -> [HTTPChallenge] {
            var challenges: [HTTPChallenge] = []
            var current: HTTPChallenge?
            while true {
                skip { $0 == .comma || $0.isWhitespace }
                guard !isAtEnd else { break }
                guard let name = token() else {
                    // Not an element of the grammar: skipped whole.
                    skipElement()
                    continue
                }
                let afterName = position
                skip { $0.isWhitespace }
                if next == .equals {
                    // A parameter, of the current challenge (one before any scheme is skipped).
                    position += 1
                    guard current != nil else {
                        skipElement()
                        continue
                    }
                    switch parameterValue() {
                    case .value(let value):
                        skip { $0.isWhitespace }
                        if isAtEnd || next == .comma {
                            current?.parameters.append(Parameter(name: name.lowercased(), value: value))
                        } else {
                            // More after the value: the parameter is not one.
                            skipElement()
                        }
                    case .malformed:
                        skipElement()
                    case .unterminated:
                        position = bytes.count
                    }
                    continue
                }
                // A new challenge: the token is its scheme, a token68 may follow.
                if let current { challenges.append(current) }
                current = HTTPChallenge(scheme: name)
                position = afterName
                if skip({ $0.isWhitespace }) > 0 {
                    let start = position
                    if let token68 = token68() {
                        skip { $0.isWhitespace }
                        if isAtEnd || next == .comma {
                            current?.token68 = token68
                            continue
                        }
                    }
                    position = start
                }
            }
            if let current { challenges.append(current) }
            return challenges
        }

        /// Skips the bytes that match; returns how many.
        @discardableResult
        mutating func skip(_ matches: (UInt8) -> Bool) -> Int {
            let start = position
            while let byte = next, matches(byte) { position += 1 }
            return position - start
        }

        /// Skips to the next comma outside a quoted string (or the end); always moves on when not
        /// at a comma already.
        mutating func skipElement() {
            while let byte = next, byte != .comma {
                if byte == .quote {
                    position += 1
                    while let inner = next, inner != .quote {
                        position += inner == .backslash ? 2 : 1
                    }
                }
                position += 1
            }
            position = min(position, bytes.count)
        }

        /// A token at the position (consumed), or nil when none starts there.
        mutating func token() -> String? {
            let start = position
            skip { $0.isTokenCharacter }
            guard position > start else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        /// A token68 at the position (consumed, its `=` padding with it), or nil.
        mutating func token68() -> String? {
            let start = position
            skip { $0.isToken68Character }
            guard position > start else { return nil }
            skip { $0 == .equals }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        enum Value {
            case value(String)
            /// Not a token nor a quoted string, or a quoted string with a control character.
            case malformed
            /// A quoted string that does not end: the rest of the field is not read.
            case unterminated
        }

        /// A parameter's value after its `=`: a token or a quoted string.
        mutating func parameterValue() -> Value {
            skip { $0.isWhitespace }
            guard next == .quote else {
                return token().map { .value($0) } ?? .malformed
            }
            position += 1
            var value: [UInt8] = []
            var isClean = true
            while let byte = next {
                position += 1
                switch byte {
                case .quote:
                    return isClean ? .value(String(decoding: value, as: UTF8.self)) : .malformed
                case .backslash:
                    guard let escaped = next else { return .unterminated }
                    position += 1
                    isClean = isClean && !escaped.isControl
                    value.append(escaped)
                default:
                    isClean = isClean && !byte.isControl
                    value.append(byte)
                }
            }
            return .unterminated
        }
    }
}

extension UInt8 {
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")

    /// A space or a horizontal tab (RFC 9110's OWS and BWS).
    fileprivate var isWhitespace: Bool { self == 0x20 || self == 0x09 }

    /// A control character other than a horizontal tab: never part of a field's value.
    fileprivate var isControl: Bool { (self < 0x20 && self != 0x09) || self == 0x7F }

    /// A `tchar` of RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``.
    fileprivate var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// A character of a token68 before its padding: letters, digits and `-._~+/`.
    fileprivate var isToken68Character: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }
}
