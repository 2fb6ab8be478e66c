/// Reads JSON text of the shape ``JSONWriter`` writes, fast: for the store's records, read by the
/// hundred thousand at launch, where `JSONDecoder` costs about 20 µs each.
///
/// It reads the values it is asked for, in the order they come, and gives up
/// (``Unsupported``) on anything it does not take exactly as `JSONDecoder` would: a number that is
/// not a plain integer where one is asked for, an escape of a UTF-16 surrogate, text that is not
/// UTF-8. Its caller then reads the same text with `JSONDecoder`: this is a fast path, never the
/// only one.
struct JSONReader {
    /// The text is not read here; `JSONDecoder` decides what it is.
    struct Unsupported: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether only white space is left.
    var isAtEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    /// Reads an object, handing each member's key to `body`, which must read the member's value.
    mutating func members(_ body: (inout JSONReader, String) throws(Unsupported) -> Void) throws(Unsupported) {
        try expect(UInt8(ascii: "{"))
        if try take(UInt8(ascii: "}")) { return }
        repeat {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
        } while try take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Reads an array, calling `body` to read each element.
    mutating func elements(_ body: (inout JSONReader) throws(Unsupported) -> Void) throws(Unsupported) {
        try expect(UInt8(ascii: "["))
        if try take(UInt8(ascii: "]")) { return }
        repeat {
            try body(&self)
        } while try take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    /// Reads `null` if it comes next; returns whether it did.
    mutating func null() throws(Unsupported) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    mutating func bool() throws(Unsupported) -> Bool {
        skipSpace()
        guard index < bytes.count else { throw Unsupported() }
        if bytes[index] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// Reads an integer written as digits, with an optional minus sign.
    mutating func integer<Value: FixedWidthInteger>(_: Value.Type = Value.self) throws(Unsupported) -> Value {
        skipSpace()
        let isNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let start = index
        var value: Value = 0
        // JSON has no leading zeros.
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "0"), Self.isNumberByte(bytes[index + 1]) {
            throw Unsupported()
        }
        while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) =
                isNegative
                ? times.subtractingReportingOverflow(Value(digit)) : times.addingReportingOverflow(Value(digit))
            guard !overflowTimes, !overflowSum else { throw Unsupported() }
            value = sum
            index += 1
        }
        guard index > start, !continuesNumber else { throw Unsupported() }
        return value
    }

    /// Reads a number as a `Double`.
    mutating func double() throws(Unsupported) -> Double {
        skipSpace()
        let start = index
        guard index < bytes.count, bytes[index] != UInt8(ascii: "+") else { throw Unsupported() }
        while index < bytes.count, Self.isNumberByte(bytes[index]) {
            index += 1
        }
        guard index > start,
            let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
            value.isFinite
        else { throw Unsupported() }
        return value
    }

    mutating func string() throws(Unsupported) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        var isPlain = true
        var isASCII = true
        while true {
            guard index < bytes.count else { throw Unsupported() }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw Unsupported() }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") {
                isPlain = false
                index += 1
            }
            index += 1
        }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        index += 1
        let text: String
        if isPlain {
            text = String(decoding: raw, as: UTF8.self)
        } else {
            text = String(decoding: try Self.unescaped(raw), as: UTF8.self)
        }
        // `String(decoding:)` repairs what is not UTF-8; `JSONDecoder` refuses it.
        if !isASCII, isPlain, !text.utf8.elementsEqual(raw) { throw Unsupported() }
        return text
    }

    /// Reads `null` as nil, else a string.
    mutating func optionalString() throws(Unsupported) -> String? {
        try null() ? nil : string()
    }

    mutating func strings() throws(Unsupported) -> [String] {
        var strings: [String] = []
        try elements { reader throws(Unsupported) in strings.append(try reader.string()) }
        return strings
    }

    /// Reads an object whose members are all strings.
    mutating func stringDictionary() throws(Unsupported) -> [String: String] {
        var dictionary: [String: String] = [:]
        try members { reader, key throws(Unsupported) in dictionary[key] = try reader.string() }
        return dictionary
    }

    private var continuesNumber: Bool {
        index < bytes.count && Self.isNumberByte(bytes[index])
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(Unsupported) {
        guard try take(byte) else { throw Unsupported() }
    }

    private mutating func take(_ byte: UInt8) throws(Unsupported) -> Bool {
        skipSpace()
        guard index < bytes.count else { throw Unsupported() }
        guard bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Unsupported) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Unsupported() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw Unsupported()
        }
        index += count
    }

    /// The bytes of a string's text with its escapes replaced; escapes of UTF-16 surrogates are
    /// left to `JSONDecoder`.
    private static func unescaped(_ raw: UnsafeRawBufferPointer) throws(Unsupported) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                continue
            }
            guard index < raw.count else { throw Unsupported() }
            let escape = raw[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "u"):
                guard index + 4 <= raw.count,
                    let code = [UInt8](hex: String(decoding: raw[index..<(index + 4)], as: UTF8.self)),
                    let unicode = Unicode.Scalar(UInt32(code[0]) << 8 | UInt32(code[1]))
                else { throw Unsupported() }
                index += 4
                output.append(contentsOf: UTF8.encode(unicode)!)
            default:
                throw Unsupported()
            }
        }
        guard String(decoding: output, as: UTF8.self).utf8.elementsEqual(output) else { throw Unsupported() }
        return output
    }
}
