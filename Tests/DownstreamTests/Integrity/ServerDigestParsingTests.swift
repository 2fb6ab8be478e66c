import Foundation
import Testing

@testable import Downstream
import DownstreamTesting

/// What a response's headers say of the whole file (``ServerDigest/offered(status:fields:)``),
/// and the CRCs behind two of those digests.
struct ServerDigestParsingTests {
    static let sha256 = [UInt8](repeating: 0x11, count: 32)
    static let sha1 = [UInt8](repeating: 0x22, count: 20)
    static let md5 = [UInt8](repeating: 0x33, count: 16)
    static let crc = [UInt8]([0xE3, 0x06, 0x92, 0x83])

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// The digests of `fields` (names as a server writes them) on `status`, as `algorithm header`.
    static func offered(_ fields: [String: String], status: Int = 200) -> [String] {
        digests(fields, status: status).map { "\($0.algorithm.rawValue) \($0.header)" }
    }

    /// The digests of a response, as the engine reads them.
    static func digests(_ fields: [String: String], status: Int = 200) -> [ServerDigest] {
        ResponseHead(ServerResponse(url: nil, statusCode: status, headers: fields)).serverDigests
    }

    // MARK: - CRCs

    @Test func crc32cAndCRC32HaveTheirCheckValues() {
        // The "check" values of the CRC catalogue: the CRC of the nine digits.
        let digits = Array("123456789".utf8)
        #expect(digits.withUnsafeBytes { CRC32C.checksum($0) } == 0xE306_9283)
        #expect(digits.withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        // RFC 3720, B.4: 32 bytes of zeros, of ones.
        #expect([UInt8](repeating: 0, count: 32).withUnsafeBytes { CRC32C.checksum($0) } == 0x8A91_36AA)
        #expect([UInt8](repeating: 0xFF, count: 32).withUnsafeBytes { CRC32C.checksum($0) } == 0x62A8_AB43)
    }

    /// Eight bytes at a time gives what one at a time does, however the bytes are cut.
    @Test func aCRCDoesNotDependOnHowTheBytesArrive() {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var oneByOne: UInt32 = 0
        for byte in message {
            oneByOne = [byte].withUnsafeBytes { CRC32C.checksum($0, continuing: oneByOne) }
        }
        #expect(message.withUnsafeBytes { CRC32C.checksum($0) } == oneByOne)
        for pieceSize in [3, 7, 8, 9, 64, 999] {
            var digest = RunningDigest(.crc32c)
            var start = 0
            while start < message.count {
                let end = min(start + pieceSize, message.count)
                message[start..<end].withUnsafeBytes { digest.update($0) }
                start = end
            }
            #expect(digest.finalized() == oneByOne.bigEndianBytes, "pieces of \(pieceSize)")
            #expect(digest.length == 1000)
        }
    }

    @Test func aCRCIsADigestOfFourBytes() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crc-\(UUID().uuidString)")
        try Data("123456789".utf8).writeWithoutSync(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Digest(.crc32c, ofFileAt: file) == Digest(.crc32c, hex: "E3069283"))
        #expect(try Digest(.crc32, ofFileAt: file).hexValue == "cbf43926")
        #expect(Digest.Algorithm.crc32c.byteCount == 4)
        #expect(Digest(.crc32c, hex: "e306928").problem != nil)
    }

    // MARK: - Headers

    @Test func eachHeaderIsRead() {
        let sha = "sha-256=:\(Self.base64(Self.sha256)):"
        #expect(Self.offered(["Repr-Digest": sha]) == ["sha256 Repr-Digest"])
        #expect(Self.offered(["content-digest": sha]) == ["sha256 Content-Digest"])
        #expect(Self.offered(["Digest": "SHA-256=\(Self.base64(Self.sha256))"]) == ["sha256 Digest"])
        #expect(Self.offered(["Content-MD5": Self.base64(Self.md5)]) == ["md5 Content-MD5"])
        #expect(
            Self.offered(["X-Goog-Hash": "crc32c=\(Self.base64(Self.crc)),md5=\(Self.base64(Self.md5))"])
                == ["md5 x-goog-hash", "crc32c x-goog-hash"])
        #expect(
            Self.offered([
                "x-amz-checksum-crc32": Self.base64(Self.crc), "x-amz-checksum-crc32c": Self.base64(Self.crc),
                "x-amz-checksum-sha1": Self.base64(Self.sha1), "x-amz-checksum-sha256": Self.base64(Self.sha256),
            ]) == [
                "sha256 x-amz-checksum-sha256", "sha1 x-amz-checksum-sha1", "crc32c x-amz-checksum-crc32c",
                "crc32 x-amz-checksum-crc32",
            ])
        let digest = Self.digests(["Repr-Digest": sha])
        #expect(digest.first?.digest == Digest(.sha256, hex: String(repeating: "11", count: 32)))
        #expect(digest.first?.source == "the server's Repr-Digest")
    }

    @Test func theStrongestAlgorithmComesFirstThenTheHeadersOrder() {
        let offered = Self.offered([
            "Content-MD5": Self.base64(Self.md5),
            "Repr-Digest": "md5=:\(Self.base64(Self.md5)):, sha=:\(Self.base64(Self.sha1)):",
            "x-goog-hash": "crc32c=\(Self.base64(Self.crc))",
            "Digest": "SHA-256=\(Self.base64(Self.sha256)), UNIXsum=30637",
        ])
        #expect(
            offered == [
                "sha256 Digest", "sha1 Repr-Digest", "md5 Repr-Digest", "md5 Content-MD5", "crc32c x-goog-hash",
            ])
    }

    /// SHA-512 (RFC 9530's and RFC 3230's `sha-512`) and SHA-384 come before SHA-256.
    @Test func sha512AndSHA384AreReadAndComeFirst() {
        let sha512 = Self.base64([UInt8](repeating: 1, count: 64))
        let sha384 = Self.base64([UInt8](repeating: 2, count: 48))
        #expect(
            Self.offered(["Repr-Digest": "sha-256=:\(Self.base64(Self.sha256)):, sha-512=:\(sha512):;p=1"])
                == ["sha512 Repr-Digest", "sha256 Repr-Digest"])
        #expect(
            Self.offered(["Digest": "MD5=\(Self.base64(Self.md5)), SHA-384=\(sha384), SHA-512=\(sha512)"])
                == ["sha512 Digest", "sha384 Digest", "md5 Digest"])
        #expect(Self.offered(["Content-Digest": "sha-384=:\(sha384):"]) == ["sha384 Content-Digest"])
        // A SHA-512 of the wrong length is not one.
        #expect(Self.offered(["Repr-Digest": "sha-512=:\(sha384):"]).isEmpty)
    }

    @Test func unknownAlgorithmsAreSkipped() {
        let sha3 = Self.base64([UInt8](repeating: 1, count: 32))
        #expect(Self.offered(["Repr-Digest": "sha3-256=:\(sha3):"]).isEmpty)
        #expect(
            Self.offered(["Repr-Digest": "sha3-256=:\(sha3):, sha-256=:\(Self.base64(Self.sha256)):;p=1"])
                == ["sha256 Repr-Digest"])
        #expect(Self.offered(["Digest": "SHA3-256=\(sha3), MD5=\(Self.base64(Self.md5))"]) == ["md5 Digest"])
        #expect(Self.offered(["x-amz-checksum-crc64nvme": "AAAAAAAAAAA="]).isEmpty)
        // Unpadded base64 in a byte sequence.
        let unpadded = Self.base64(Self.md5).replacingOccurrences(of: "=", with: "")
        #expect(Self.offered(["Repr-Digest": "md5=:\(unpadded):"]) == ["md5 Repr-Digest"])
    }

    @Test(arguments: [
        "sha-256=\(base64(sha256))",  // not a byte sequence
        "sha-256=:\(base64(sha256))",  // unclosed
        "sha-256=:\(base64(md5)):",  // the wrong length
        "sha-256=:not base64!:",
        "SHA-256=:\(base64(sha256)):",  // keys are lowercase
        "sha-256=:\(base64(sha256)):, ",  // a trailing comma
        "md5=:\(base64(md5)):, garbage",  // one member that cannot be read spoils the field
        "sha-256=:\(base64(sha256)):x",
    ])
    func aMalformedStructuredFieldIsIgnored(_ value: String) {
        #expect(Self.offered(["Repr-Digest": value]).isEmpty)
    }

    @Test func malformedValuesOfTheOtherHeadersAreIgnored() {
        #expect(Self.offered(["Digest": "SHA-256"]).isEmpty)
        #expect(Self.offered(["Digest": "SHA-256=\(Self.base64(Self.md5))"]).isEmpty)
        #expect(Self.offered(["Content-MD5": "d41d8cd98f00b204e9800998ecf8427e"]).isEmpty)
        #expect(Self.offered(["x-goog-hash": "crc32c=????"]).isEmpty)
        #expect(Self.offered(["x-amz-checksum-sha256": "\(Self.base64(Self.sha256))-2"]).isEmpty)
        #expect(Self.offered(["x-amz-checksum-crc32": "AAA"]).isEmpty)
    }

    @Test func aPartialContentTrustsOnlyDigestsOfTheWholeFile() {
        let fields = [
            "Repr-Digest": "sha=:\(Self.base64(Self.sha1)):",
            "Content-Digest": "sha-256=:\(Self.base64(Self.sha256)):",
            "Digest": "SHA-256=\(Self.base64(Self.sha256))",
            "Content-MD5": Self.base64(Self.md5),
            "x-amz-checksum-sha256": Self.base64(Self.sha256),
            "x-goog-hash": "crc32c=\(Self.base64(Self.crc))",
        ]
        #expect(
            Self.offered(fields.merging(["Content-Range": "bytes 10-99/100"]) { $1 }, status: 206)
                == ["sha1 Repr-Digest", "crc32c x-goog-hash"])
        #expect(Self.offered(fields, status: 206) == ["sha1 Repr-Digest", "crc32c x-goog-hash"])
        // A range that is the whole file: its content is the file's.
        #expect(Self.offered(fields.merging(["Content-Range": "bytes 0-99/100"]) { $1 }, status: 206).count == 6)
        #expect(Self.offered(fields.merging(["Content-Range": "bytes 0-98/100"]) { $1 }, status: 206).count == 2)
        #expect(Self.offered(fields.merging(["Content-Range": "bytes 0-99/*"]) { $1 }, status: 206).count == 2)
        #expect(Self.offered(fields, status: 200).count == 6)
        for status in [201, 203, 304, 404, 416, 500] {
            #expect(Self.offered(fields, status: status).isEmpty, "\(status)")
        }
    }

    @Test func anEncodedBodyHasNoDigestOfTheFile() {
        let fields = ["Repr-Digest": "sha-256=:\(Self.base64(Self.sha256)):", "Content-MD5": Self.base64(Self.md5)]
        #expect(Self.offered(fields.merging(["Content-Encoding": "gzip"]) { $1 }).isEmpty)
        #expect(Self.offered(fields.merging(["Content-Encoding": " Identity "]) { $1 }).count == 2)
        // Google Cloud Storage serving a compressed object decoded: its hashes are of the stored bytes.
        #expect(
            Self.offered(["x-goog-hash": "md5=\(Self.base64(Self.md5))", "x-goog-stored-content-encoding": "gzip"])
                .isEmpty)
    }

    @Test func anS3ETagIsAnMD5OnlyWhenS3SaysSoAndTheObjectIsOneOfPlainParts() {
        let hex = String(repeating: "3", count: 32)
        let etag = "\"\(hex)\""
        #expect(Self.offered(["ETag": etag, "x-amz-request-id": "ABC"]) == ["md5 ETag"])
        #expect(Self.offered(["ETag": etag, "Server": "AmazonS3"], status: 206) == ["md5 ETag"])
        #expect(Self.offered(["ETag": etag]).isEmpty, "not S3")
        #expect(Self.offered(["ETag": etag, "Server": "nginx"]).isEmpty)
        #expect(Self.offered(["ETag": "\"\(hex)-2\"", "x-amz-request-id": "ABC"]).isEmpty, "multipart")
        #expect(Self.offered(["ETag": "W/\(etag)", "x-amz-request-id": "ABC"]).isEmpty, "weak")
        #expect(Self.offered(["ETag": hex, "x-amz-request-id": "ABC"]).isEmpty, "unquoted")
        #expect(
            Self.offered(["ETag": etag, "x-amz-request-id": "ABC", "x-amz-server-side-encryption": "aws:kms"]).isEmpty)
        #expect(
            Self.offered([
                "ETag": etag, "x-amz-request-id": "ABC", "x-amz-server-side-encryption-customer-algorithm": "AES256",
            ]).isEmpty)
        #expect(
            Self.offered(["ETag": etag, "x-amz-request-id": "ABC", "x-amz-server-side-encryption": "AES256"])
                == ["md5 ETag"])
        let digest = Self.digests(["ETag": etag, "x-amz-request-id": "A"])
        #expect(digest.first?.hex == hex)
    }

    @Test func aCompositeAmazonChecksumIsIgnored() {
        #expect(
            Self.offered(["x-amz-checksum-crc32c": Self.base64(Self.crc), "x-amz-checksum-type": "COMPOSITE"]).isEmpty)
        #expect(
            Self.offered(["x-amz-checksum-crc32c": Self.base64(Self.crc), "x-amz-checksum-type": "FULL_OBJECT"])
                == ["crc32c x-amz-checksum-crc32c"])
    }
}
