/// A hash that is the same in every process and on every platform (FNV-1a, 64 bits), for names
/// on disk. Swift's `Hasher` is seeded per process and cannot be used for that.
enum StableHash {
    /// The hash before any byte (FNV-1a's offset basis).
    static let start: UInt64 = 0xcbf2_9ce4_8422_2325

    static func hex(_ text: String) -> String {
        hex(of: value(text))
    }

    /// `hash` as 16 lowercase hexadecimal digits.
    static func hex(of hash: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 16) { characters in
            digits.withUTF8Buffer { digits in
                for position in 0..<16 {
                    characters[position] = digits[Int(clamping: hash >> (60 - 4 * UInt64(position)) & 0xF)]
                }
            }
            return 16
        }
    }

    /// The hash of `text`, or of what was hashed into `hash` followed by `text`: the hash of
    /// several texts in a row, without joining them.
    static func value(_ text: String, continuing hash: UInt64 = start) -> UInt64 {
        var hash = hash
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
