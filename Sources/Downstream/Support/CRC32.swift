/// CRC-32 (IEEE 802.3, the checksum of zip and PNG), to tell a whole record from a torn one.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The checksum of `bytes`, continuing from `initial` (the checksum of the bytes before).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return ~crc
    }
}
