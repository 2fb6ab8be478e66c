internal import CCurl

/// CRC-32 (IEEE 802.3, the checksum of zip and PNG), to tell a whole record from a torn one, and
/// to check files whose server gives it (`x-amz-checksum-crc32`). zlib's where it is loaded (on
/// Linux), else computed here.
package enum CRC32 {
    private static let tables = CRCTables(polynomial: 0xEDB8_8320)

    /// The checksum of `bytes`, continuing from `initial` (the checksum of the bytes before).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        checksum(bytes, continuing: initial, implementation: .preferred)
    }

    static func checksum(
        _ bytes: UnsafeRawBufferPointer, continuing initial: UInt32, implementation: DigestImplementation
    ) -> UInt32 {
        var crc = initial
        if implementation == .platform, let base = bytes.baseAddress, ds_crc32(&crc, base, bytes.count) == 1 {
            return crc
        }
        return tables.checksum(bytes, continuing: initial)
    }
}

/// CRC-32C (Castagnoli, RFC 3720's iSCSI checksum), which object stores give for their files
/// (`x-goog-hash: crc32c=…`, `x-amz-checksum-crc32c`). The CPU's instruction where it has one
/// (SSE 4.2, ARMv8's CRC extension), else computed here.
enum CRC32C {
    private static let tables = CRCTables(polynomial: 0x82F6_3B78)

    /// The checksum of `bytes`, continuing from `initial` (the checksum of the bytes before).
    static func checksum(
        _ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0,
        implementation: DigestImplementation = .preferred
    ) -> UInt32 {
        var crc = initial
        if implementation == .platform, let base = bytes.baseAddress, ds_crc32c(&crc, base, bytes.count) == 1 {
            return crc
        }
        return tables.checksum(bytes, continuing: initial)
    }
}

/// The tables of a reflected 32-bit CRC, eight bytes at a time ("slicing by 8"): table `k` holds
/// the remainder of a byte followed by `k` zero bytes.
private struct CRCTables: Sendable {
    private let table: [UInt32]

    init(polynomial: UInt32) {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 {
                value = value & 1 == 1 ? (value >> 1) ^ polynomial : value >> 1
            }
            table[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = table[(slice - 1) * 256 + index]
                table[slice * 256 + index] = (previous >> 8) ^ table[Int(truncatingIfNeeded: previous & 0xFF)]
            }
        }
        self.table = table
    }

    func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32) -> UInt32 {
        var crc = ~initial
        table.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while count - index >= 8 {
                let first: UInt32 = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                let second: UInt32 = UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
                crc ^= first | second
                let a: UInt32 =
                    table[7 * 256 + Int(truncatingIfNeeded: crc & 0xFF)]
                    ^ table[6 * 256 + Int(truncatingIfNeeded: (crc >> 8) & 0xFF)]
                let b: UInt32 =
                    table[5 * 256 + Int(truncatingIfNeeded: (crc >> 16) & 0xFF)]
                    ^ table[4 * 256 + Int(truncatingIfNeeded: crc >> 24)]
                let c: UInt32 = table[3 * 256 + Int(bytes[index + 4])] ^ table[2 * 256 + Int(bytes[index + 5])]
                let d: UInt32 = table[256 + Int(bytes[index + 6])] ^ table[Int(bytes[index + 7])]
                crc = a ^ b ^ c ^ d
                index += 8
            }
            while index < count {
                crc = table[Int(truncatingIfNeeded: (crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        return ~crc
    }
}
