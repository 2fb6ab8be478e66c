@_spi(Testing) @testable import Downstream
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
        case s3ServerETag

        /// The header the download names when the file does not match.
        var header: String {
            switch self {
            case .reprDigest: "Repr-Digest"
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
                    "sha-512=:\(Data(count: 64).base64EncodedString()):, sha-256=:\(base64(.sha256)):"
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

    /// A `206` whose range is a part of the file: its `Content-Digest` and `Content-MD5` are of
    /// the part, and the file is checked against the whole file's digest of the first response.
    @Test func digestsOfThePartInAPartialContentAreNotTheFiles() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 900_000, seed: 2106)
            let whole = body.bytes(0..<body.count)
            let url = fixture.serve("/parts.bin", body) {
                Kind.contentDigest.give(whole, on: &$0)
                Kind.contentMD5.give(whole, on: &$0)
                $0.faults = [.holdAfter(300_000)]
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("parts.bin")))
            await download.waitForBytes(300_000)
            await download.pause()
            let stored = try #require(fixture.storedRecord(download.id)?.resume.serverDigest)
            #expect(stored.header == "Content-Digest")

            // The answer to the continued request gives the digests of its part, as it should.
            fixture.serve("/parts.bin", body) {
                Kind.contentDigest.give(body.bytes(300_000..<body.count), on: &$0)
                Kind.contentMD5.give(body.bytes(300_000..<body.count), on: &$0)
            }
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/parts.bin").map(\.rangeStart) == [0, 300_000])
        }
    }

    @Test func aPartialContentAloneGivesNoDigestOfItsPart() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 500_000, seed: 2107)
            let url = fixture.serve("/part-only.bin", body) {
                Kind.contentDigest.give(body.bytes(200_000..<body.count), on: &$0)
                Kind.instanceDigest.give(body.bytes(200_000..<body.count), on: &$0)
            }
            try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("part-only.bin")), partial: body, length: 200_000)
            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/part-only.bin").map(\.rangeStart) == [200_000])
        }
    }

    /// The server's file changes behind validators that stay (`cp -p`, `rsync -a`), after the
    /// resume point: neither `If-Range` nor an overlap can see it; the digest the first response
    /// gave, kept across the relaunch, does.
    @Test func aResumedFileIsCheckedAgainstTheDigestOfItsFirstResponse() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 800_000, seed: 2108)
            let url = fixture.serve("/relaunch.bin", body) {
                Kind.reprDigest.give(body.bytes(0..<body.count), on: &$0)
                $0.faults = [.holdAfter(250_000)]
            }
            let request = DownloadRequest(url: url, to: .file(fixture.file("relaunch.bin")))
            do {
                let manager = try fixture.makeManager()
                let download = await manager.download(request)
                await download.waitForBytes(250_000)
                await download.pause()
                let stored = try #require(fixture.storedRecord(download.id)?.resume)
                #expect(stored.serverDigest?.header == "Repr-Digest")
                #expect(stored.digest?.algorithm == .sha256)
                await manager.invalidate()
            }
            // The same validators and the same Repr-Digest, a byte changed far past the resume point.
            fixture.serve("/relaunch.bin", .data(Self.changed(body, at: 700_000))) {
                Kind.reprDigest.give(body.bytes(0..<body.count), on: &$0)
            }

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.reason.contains("the server's Repr-Digest says SHA-256"))
            #expect(fixture.server.requests("/relaunch.bin").map(\.rangeStart) == [0, 250_000])
        }
    }

    /// The server's file changes before the resume point, validators kept, and its Repr-Digest
    /// says so: the continued answer is of another file, and the download starts over (or fails).
    @Test(arguments: [DownloadRequest.ServerFileChangePolicy.restart, .fail])
    func aContinuationWithAnotherDigestIsAnotherFile(_ policy: DownloadRequest.ServerFileChangePolicy) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 600_000, seed: 2109)
            let url = fixture.serve("/changed.bin", body) {
                Kind.reprDigest.give(body.bytes(0..<body.count), on: &$0)
                $0.faults = [.holdAfter(300_000)]
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("changed.bin")))
            request.onServerFileChange = policy
            let download = await fixture.manager.download(request)
            await download.waitForBytes(300_000)
            await download.pause()

            let changed = Self.changed(body, at: 1_000)
            fixture.serve("/changed.bin", .data(changed)) { Kind.reprDigest.give(changed, on: &$0) }
            await download.resume()
            if policy == .fail {
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == .serverFileChanged)
                #expect(error.reason.contains("SHA-256 digest changed"), "\(error.reason)")
                #expect(fixture.server.requests("/changed.bin").map(\.rangeStart) == [0, 300_000])
            } else {
                try Body.data(changed).expectMatches(try await download.fileURL)
                #expect(fixture.server.requests("/changed.bin").map(\.rangeStart) == [0, 300_000, 0])
                #expect(await download.allEvents().contains(.restarted))
            }
        }
    }

    @Test func aFileInSeveralRangesIsCheckedAsAWhole() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 262_144 }) { fixture in
            let body = Body.pattern(count: 1_000_003, seed: 2110)
            let good = fixture.serve("/ranges.bin", body) { Kind.reprDigest.give(body.bytes(0..<body.count), on: &$0) }
            let bad = fixture.serve("/bad-ranges.bin", body) {
                Kind.googleHash.give(Self.changed(body, at: 999_999), on: &$0)
            }
            try body.expectMatches(try await fixture.manager.download(from: good, to: .file(fixture.file("a"))).fileURL)
            #expect(fixture.server.requests("/ranges.bin").count == 4)
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.download(from: bad, to: .file(fixture.file("b"))).fileURL
            }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.reason.contains("x-goog-hash says MD5"))
        }
    }

    @Test func aFileOverSeveralConnectionsIsCheckedAgainstTheFirstSegmentsDigest() async throws {
        try await withFixture(SegmentedDownloadTests.segmented(3)) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 2111)
            let good = fixture.serve("/segments.bin", body) { Kind.s3ETag.give(body.bytes(0..<body.count), on: &$0) }
            let bad = fixture.serve("/bad-segments.bin", body) {
                Kind.reprDigest.give(Self.changed(body, at: 1_500_000), on: &$0)
            }
            try body.expectMatches(try await fixture.manager.download(from: good, to: .file(fixture.file("a"))).fileURL)
            #expect(fixture.server.requests("/segments.bin").count > 2)
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.download(from: bad, to: .file(fixture.file("b"))).fileURL
            }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.reason.contains("Repr-Digest"))
        }
    }

    @Test func aSystemDownloadIsCheckedAgainstTheServersDigest() async throws {
        try await withFixture(SystemEngineTests.foreground) { fixture in
            let body = Body.pattern(count: 500_000, seed: 2112)
            let good = fixture.serve("/system.bin", body) { Kind.contentMD5.give(body.bytes(0..<body.count), on: &$0) }
            let bad = fixture.serve("/bad-system.bin", body) {
                Kind.contentMD5.give(Self.changed(body, at: 3), on: &$0)
            }
            try body.expectMatches(try await fixture.manager.download(from: good, to: .file(fixture.file("a"))).fileURL)
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.download(from: bad, to: .file(fixture.file("b"))).fileURL
            }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.reason.contains("the server's Content-MD5 says MD5"))
        }
    }
}
