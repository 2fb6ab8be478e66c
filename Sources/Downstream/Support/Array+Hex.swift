extension Array where Element == UInt8 {
    /// The bytes that `hex` (an even number of hexadecimal digits, either case) spells.
    init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = UInt8(hexDigit: digits[index]), let low = UInt8(hexDigit: digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        self = bytes
    }

    /// The bytes as lowercase hexadecimal, as digests are usually written.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(count * 2)
        for byte in self {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}

extension UInt8 {
    /// The value of the hexadecimal digit `digit` (either case); nil for any other byte.
    init?(hexDigit digit: UInt8) {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self = digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self = digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self = digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
