internal import CCurl
import Foundation

/// Whose code computes digests: the platform's (libcrypto's block functions on Linux,
/// CommonCrypto on Apple platforms, the CPU's CRC-32C instruction, zlib's CRC-32), which is
/// several times faster, or Downstream's own Swift code. The platform's is used wherever it is
/// there; Swift computes what it lacks. Both keep the same state, so a digest saved by one goes on
/// in the other.
enum DigestImplementation: Sendable, Equatable {
    /// The platform's code where it has it, else Swift's.
    case platform
    /// Swift's code only.
    case swift

    /// The platform's, unless the environment says `DOWNSTREAM_DIGESTS=swift` (to measure or test
    /// the Swift code in a whole process).
    static let preferred: DigestImplementation =
        ProcessInfo.processInfo.environment["DOWNSTREAM_DIGESTS"] == "swift" ? .swift : .platform

    /// Why SHA-2, SHA-1 and MD5 are computed in Swift in this process; nil when the platform's
    /// hash functions are used.
    static let hashesFallbackReason: String? = {
        if preferred == .swift { return "DOWNSTREAM_DIGESTS=swift" }
        var error = [CChar](repeating: 0, count: 256)
        guard ds_hashes_load(&error, error.count) == 0 else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}
