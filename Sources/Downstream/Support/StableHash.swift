/// A hash that is the same in every process and on every platform (FNV-1a, 64 bits), for names
/// on disk. Swift's `Hasher` is seeded per process and cannot be used for that.
enum StableHash {
    static func hex(_ text: String) -> String {
        let hash = value(text)
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: hash >> (60 - 4 * UInt64(index)) & 0xF)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 16
        }
    }

    static func value(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
