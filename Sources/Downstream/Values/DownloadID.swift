import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A download's identity, stable for its whole life: ``Download/ID``.
public struct DownloadID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier's value.
    public let rawValue: UUID

    /// Creates an identifier from a stored value.
    public init(rawValue: UUID) {
        self.rawValue = rawValue
    }

    /// A new random identifier (version 4). Not `UUID()`: on Linux that opens and reads
    /// `/dev/urandom` for every identifier.
    init() {
        var bytes = (UInt64(0), UInt64(0))
        #if canImport(Glibc) || canImport(Musl)
            // One system call per 16 identifiers (`SystemRandomNumberGenerator` makes one per 8
            // bytes): an app may queue 100,000 downloads.
            let filled = withUnsafeMutableBytes(of: &bytes) { raw in Self.entropy.withLock { $0.take(into: raw) } }
        #else
            let filled = false
        #endif
        if !filled {
            var generator = SystemRandomNumberGenerator()
            bytes = (generator.next(), generator.next())
        }
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
        }
        rawValue = UUID(uuid: withUnsafeBytes(of: bytes) { $0.load(as: uuid_t.self) })
    }

    #if canImport(Glibc) || canImport(Musl)
        /// Random bytes for new identifiers, taken from the system 256 at a time (`getentropy`'s
        /// most).
        private struct EntropyPool {
            private var bytes = [UInt8](repeating: 0, count: 256)
            private var used = 256

            /// Fills `raw` (at most 256 bytes); false if the system gave no random bytes.
            mutating func take(into raw: UnsafeMutableRawBufferPointer) -> Bool {
                if used + raw.count > bytes.count {
                    let filled = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) == 0 }
                    guard filled else { return false }
                    used = 0
                }
                bytes.withUnsafeBytes { pool in
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: pool[used..<used + raw.count]))
                }
                // Each byte is given once.
                used += raw.count
                return true
            }
        }

        private static let entropy = Locked(EntropyPool())
    #endif

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { text }

    /// The identifier's text, as `UUID.uuidString` writes it, made without its `snprintf`: every
    /// record written (one per queued download, and 100,000 may be queued) holds it.
    var text: String {
        let digits: StaticString = "0123456789ABCDEF"
        return withUnsafeBytes(of: rawValue.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var count = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[count] = UInt8(ascii: "-")
                        count += 1
                    }
                    text[count] = digits.utf8Start[Int(byte >> 4)]
                    text[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    count += 2
                }
                return count
            }
        }
    }
}
