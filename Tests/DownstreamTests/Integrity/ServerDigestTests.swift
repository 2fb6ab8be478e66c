@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Digests the server gives (`Repr-Digest`, `Content-MD5`, an S3 `ETag`…): checked when the
/// request expects none, across pauses and relaunches; only those that describe the whole file.
@Suite(.timeLimit(.minutes(2)))
struct ServerDigestTests {
    /// A header, or a pair of headers, that gives a digest of the file.
    enum Kind: String, CaseIterable, Sendable {
        case reprDigest, contentDigest, instanceDigest, contentMD5, googleHash, amazonSHA256, amazonCRC32, s3ETag
        case s3ServerETag, reprDigestSHA512

        /// The header the download names when the file does not match.
        var header: String {
            switch self {
            case .reprDigest, .reprDigestSHA512: "Repr-Digest"
            case .contentDigest: "Content-Digest"
            case .instanceDigest: "Digest"
            case .contentMD5: "Content-MD5"
            case .googleHash: "x-goog-hash"
            case .amazonSHA256: "x-amz-checksum-sha256"
            case .amazonCRC32: "x-amz-checksum-crc32"
            case .s3ETag, .s3ServerETag: "ETag"
            }
        }

        /// Makes `route` give this kind of digest of `bytes`.
        func give(_ bytes: Data, on route: inout Route) {
            let base64 = { (algorithm: Digest.Algorithm) in
                Data(ServerDigestTests.digest(algorithm, of: bytes)).base64EncodedString()
            }
            switch self {
            case .reprDigest:
                route.extraHeaders["Repr-Digest"] =
                    "sha3-512=:\(Data(count: 64).base64EncodedString()):, sha-256=:\(base64(.sha256)):"
            case .reprDigestSHA512:
                route.extraHeaders["Repr-Digest"] = "sha-256=:\(base64(.sha256)):, sha-512=:\(base64(.sha512)):"
            case .contentDigest: route.extraHeaders["Content-Digest"] = "sha-256=:\(base64(.sha256)):"
            case .instanceDigest: route.extraHeaders["Digest"] = "SHA=\(base64(.sha1)),MD5=\(base64(.md5))"
            case .contentMD5: route.extraHeaders["Content-MD5"] = base64(.md5)
            case .googleHash: route.extraHeaders["x-goog-hash"] = "crc32c=\(base64(.crc32c)),md5=\(base64(.md5))"
            case .amazonSHA256: route.extraHeaders["x-amz-checksum-sha256"] = base64(.sha256)
            case .amazonCRC32: route.extraHeaders["x-amz-checksum-crc32"] = base64(.crc32)
            case .s3ETag:
                route.etag = "\"\(ServerDigestTests.digest(.md5, of: bytes).hexString)\""
                route.extraHeaders["x-amz-request-id"] = "4442587FB7D0A2F9"
            case .s3ServerETag:
                route.etag = "\"\(ServerDigestTests.digest(.md5, of: bytes).hexString)\""
                route.extraHeaders["Server"] = "AmazonS3"
            }
        }
    }

    static func digest(_ algorithm: Digest.Algorithm, of bytes: Data) -> [UInt8] {
        var digest = RunningDigest(algorithm)
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.finalized()
    }

    /// The bytes of `body`, with the byte at `offset` changed.
    static func changed(_ body: Body, at offset: Int) -> Data {
        var bytes = body.bytes(0..<body.count)
        bytes[offset] ^= 0xFF
        return bytes
    }

    @Test(arguments: Kind.allCases)
    func aFileWithTheServersDigestIsDelivered(_ kind: Kind) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 700_001, seed: 2100)
            let url = fixture.serve("/good.bin", body) { kind.give(body.bytes(0..<body.count), on: &$0) }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("good.bin")))
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test(arguments: Kind.allCases)
    func aFileWithoutTheServersDigestFailsAndIsDiscarded(_ kind: Kind) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 600_000, seed: 2101)
            // The server says what another version of the file has.
            let url = fixture.serve("/bad.bin", body) { kind.give(Self.changed(body, at: 5), on: &$0) }
            let destination = fixture.file("bad.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))

            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.reason.contains("the server's \(kind.header) says"), "\(error.reason)")
            #expect(error.path == nil)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(!FileManager.default.fileExists(atPath: download.location.path))
            #expect(download.currentProgress.bytesReceived == 0)
        }
    }

    @Test func aRejectedFileIsKeptWhenTheRequestSaysSo() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 400_000, seed: 2102)
            let url = fixture.serve("/kept.bin", body) { Kind.reprDigest.give(Self.changed(body, at: 0), on: &$0) }
            var request = DownloadRequest(url: url, to: .file(fixture.file("kept.bin")))
            request.onRejectedFile = .keep
            let download = await fixture.manager.download(request)

            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            let sha256 = Self.digest(.sha256, of: body.bytes(0..<body.count)).hexString
            #expect(error.reason.hasPrefix("the server's Repr-Digest says SHA-256 "))
            #expect(error.reason.hasSuffix(", the file has \(sha256)"))
            #expect(error.path == download.location.path)
            try body.expectMatches(URL(fileURLWithPath: try #require(error.path)))
            #expect(!FileManager.default.fileExists(atPath: fixture.file("kept.bin").path))
        }
    }

    @Test func withTheSettingOffAServersDigestIsNotChecked() async throws {
        try await withFixture({ $0.integrity.verifiesServerDigests = false }) { fixture in
            let body = Body.pattern(count: 300_000, seed: 2103)
            let url = fixture.serve("/off.bin", body) {
                Kind.reprDigest.give(Self.changed(body, at: 1), on: &$0)
                Kind.s3ETag.give(Self.changed(body, at: 1), on: &$0)
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("off.bin")))
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func theRequestsExpectedDigestComesBeforeTheServers() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 300_000, seed: 2104)
            let url = fixture.serve("/expected.bin", body) { Kind.contentMD5.give(Self.changed(body, at: 1), on: &$0) }
            var request = DownloadRequest(url: url, to: .file(fixture.file("expected.bin")))
            request.expectedDigest = ExpectedDigestTests.digest(.sha256, of: body)
            try body.expectMatches(try await fixture.manager.download(request).fileURL)
        }
    }

    @Test func anETagIsAnMD5OnlyForASinglePartObjectOfS3() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 200_000, seed: 2105)
            let wrongMD5 = Self.digest(.md5, of: Self.changed(body, at: 2)).hexString
            // Not S3: an ETag of 32 hexadecimal digits is only a validator.
            let plain = fixture.serve("/plain.bin", body) { $0.etag = "\"\(wrongMD5)\"" }
            // A multipart upload's ETag is no MD5 of the object.
            let multipart = fixture.serve("/multipart.bin", body) {
                $0.etag = "\"\(wrongMD5)-2\""
                $0.extraHeaders["x-amz-request-id"] = "4442587FB7D0A2F9"
            }
            // Nor is the ETag of an object encrypted with KMS.
            let kms = fixture.serve("/kms.bin", body) {
                $0.etag = "\"\(wrongMD5)\""
                $0.extraHeaders["x-amz-request-id"] = "4442587FB7D0A2F9"
                $0.extraHeaders["x-amz-server-side-encryption"] = "aws:kms"
            }
            for (url, name) in [(plain, "plain.bin"), (multipart, "multipart.bin"), (kms, "kms.bin")] {
                let download = await fixture.manager.download(from: url, to: .file(fixture.file(name)))
                try body.expectMatches(try await download.fileURL)
            }
        }
    }
}
