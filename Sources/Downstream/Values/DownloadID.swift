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
            // One system call for the 16 bytes (`SystemRandomNumberGenerator` makes one per 8).
            let filled = withUnsafeMutableBytes(of: &bytes) { getentropy($0.baseAddress, $0.count) == 0 }
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

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue.uuidString }
}
