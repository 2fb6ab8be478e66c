/// The checks a header field passes before Downstream sends it: a value with a line break or a
/// NUL would end the field (or the request) early and start another the server then obeys (a
/// request split in two), and a name that is not an HTTP token is no header at all.
enum HeaderField {
    /// Why the field `name: value` cannot be sent, or nil when it can (RFC 9110 section 5: a
    /// name is a token; a value has no CR, LF or NUL).
    static func problem(name: String, value: String) -> String? {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
            return "the header name \(quoted(name)) is not an HTTP token"
        }
        guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
            return "the value of the header \(name) holds a line break or a NUL: \(quoted(value))"
        }
        return nil
    }

    /// Why one of `fields` cannot be sent, or nil when all can.
    static func problem(in fields: [String: String]) -> String? {
        // In name order: the same answer whatever the dictionary's order.
        for name in fields.keys.sorted() {
            if let problem = problem(name: name, value: fields[name] ?? "") { return problem }
        }
        return nil
    }

    /// tchar: `!#$%&'*+-.^_`|~`, digits and letters.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// `text` in quotes, escaped as logs escape it (see ``LogText``), so that a message shows it
    /// on one line as it is.
    private static func quoted(_ text: String) -> String {
        "\"" + LogText.escaped(text) + "\""
    }
}
