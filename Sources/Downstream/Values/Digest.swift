import Foundation

/// A digest that a download's file must have: the algorithm and the value the publisher gives.
///
/// Set it on the request; the file is hashed while it is written (across pauses, resumes and
/// relaunches) and delivered only if the digests match:
///
/// ```swift
/// var request = DownloadRequest(url: isoURL, to: .directory(downloads))
/// request.expectedDigest = .sha256("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
/// ```
///
/// A mismatch fails the download with ``DownloadError/Kind/integrityCheckFailed``. A request
/// without one is checked against the digest its server gives, when it gives one (see
/// ``DownloadManager/Configuration-swift.struct/Integrity-swift.struct``).
public struct Digest: Sendable, Hashable, CustomStringConvertible {
    /// A hash function.
    public struct Algorithm: Sendable, Hashable, CustomStringConvertible {
        enum Code: String, Sendable, Codable {
            case sha512 = "sha512"
            case sha384 = "sha384"
            case sha256 = "sha256"
            case sha1 = "sha1"
            case md5 = "md5"
            case crc32c = "crc32c"
            case crc32 = "crc32"
        }

        let code: Code

        /// SHA-512 (FIPS 180-4), as Linux distributions and RFC 9530's `sha-512` give it.
        public static let sha512 = Algorithm(code: .sha512)
        /// SHA-384 (FIPS 180-4).
        public static let sha384 = Algorithm(code: .sha384)
        /// SHA-256 (FIPS 180-4). Use it, or SHA-512, whenever the publisher offers it.
        public static let sha256 = Algorithm(code: .sha256)
        /// SHA-1 (FIPS 180-4), for servers that publish nothing better. It detects damage, not
        /// tampering.
        public static let sha1 = Algorithm(code: .sha1)
        /// MD5 (RFC 1321), for servers that publish nothing better. It detects damage, not
        /// tampering.
        public static let md5 = Algorithm(code: .md5)
        /// CRC-32C (Castagnoli, RFC 3720), as object stores give it (`x-goog-hash`,
        /// `x-amz-checksum-crc32c`); the value is the checksum's 4 bytes, most significant first.
        /// It detects damage, not tampering.
        public static let crc32c = Algorithm(code: .crc32c)
        /// CRC-32 (IEEE 802.3, the checksum of zip), as some object stores give it
        /// (`x-amz-checksum-crc32`); the value is the checksum's 4 bytes, most significant first.
        /// It detects damage, not tampering.
        public static let crc32 = Algorithm(code: .crc32)

        /// How many bytes a digest of this algorithm has.
        public var byteCount: Int {
            switch code {
            case .sha512: 64
            case .sha384: 48
            case .sha256: 32
            case .sha1: 20
            case .md5: 16
            case .crc32c, .crc32: 4
            }
        }

        public var description: String {
            switch code {
            case .sha512: "SHA-512"
            case .sha384: "SHA-384"
            case .sha256: "SHA-256"
            case .sha1: "SHA-1"
            case .md5: "MD5"
            case .crc32c: "CRC-32C"
            case .crc32: "CRC-32"
            }
        }

        /// How much a match of this algorithm proves, to choose among the digests a server gives:
        /// SHA-512, SHA-384, SHA-256, then SHA-1, MD5, CRC-32C, CRC-32.
        var strength: Int {
            switch code {
            case .sha512: 7
            case .sha384: 6
            case .sha256: 5
            case .sha1: 4
            case .md5: 3
            case .crc32c: 2
            case .crc32: 1
            }
        }
    }

    /// The hash function.
    public let algorithm: Algorithm
    /// The expected value as lowercase hexadecimal digits.
    public let hexValue: String

    /// A digest of `algorithm` with the value `hex` (hexadecimal digits, either case).
    ///
    /// A value that is not ``Algorithm/byteCount`` bytes of hexadecimal digits is not refused
    /// here: a download with it fails at once with ``DownloadError/Kind/invalidRequest``.
    public init(_ algorithm: Algorithm, hex: String) {
        self.algorithm = algorithm
        hexValue = hex.lowercased()
    }

    /// A SHA-512 digest, in hexadecimal (as `sha512sum` prints it).
    public static func sha512(_ hex: String) -> Digest { Digest(.sha512, hex: hex) }
    /// A SHA-384 digest, in hexadecimal (as `sha384sum` prints it).
    public static func sha384(_ hex: String) -> Digest { Digest(.sha384, hex: hex) }
    /// A SHA-256 digest, in hexadecimal (as `sha256sum` prints it).
    public static func sha256(_ hex: String) -> Digest { Digest(.sha256, hex: hex) }
    /// A SHA-1 digest, in hexadecimal (as `sha1sum` prints it).
    public static func sha1(_ hex: String) -> Digest { Digest(.sha1, hex: hex) }
    /// An MD5 digest, in hexadecimal (as `md5sum` prints it).
    public static func md5(_ hex: String) -> Digest { Digest(.md5, hex: hex) }

    public var description: String { "\(algorithm) \(hexValue)" }

    /// Why the value cannot be a digest of its algorithm, or nil if it can.
    var problem: String? {
        guard let bytes, bytes.count == algorithm.byteCount else {
            let digits = algorithm.byteCount * 2
            return "the expected \(algorithm) digest must be \(digits) hexadecimal digits, not \"\(hexValue)\""
        }
        return nil
    }

    /// The value's bytes; nil if it is not hexadecimal.
    var bytes: [UInt8]? { [UInt8](hex: hexValue) }
}
