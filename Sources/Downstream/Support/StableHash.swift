/// A hash that is the same in every process and on every platform (FNV-1a, 64 bits), for names
/// on disk. Swift's `Hasher` is seeded per process and cannot be used for that.
enum StableHash {
    static func hex(_ text: String) -> String {
        withUnsafeBytes(of: value(text).bigEndian) { Array($0).hexString }
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
