@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A server's digest across requests: kept with the partial file through pauses and relaunches,
/// never taken from a part, compared with the digests of continued answers; in ranges, over
/// several connections, and for system download tasks.
@Suite(.timeLimit(.minutes(2)))
struct ServerDigestResumptionTests {
    typealias Kind = ServerDigestTests.Kind

    static func changed(_ body: Body, at offset: Int) -> Data {
        ServerDigestTests.changed(body, at: offset)
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
            #expect(
                fixture.server.requests("/parts.bin").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 300_000)])
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
            #expect(
                fixture.server.requests("/part-only.bin").map(\.rangeStart) == [fixture.rangeStart(continuing: 200_000)]
            )
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
            #expect(
                fixture.server.requests("/relaunch.bin").map(\.rangeStart) == [
                    0, fixture.rangeStart(continuing: 250_000),
                ])
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
                #expect(
                    fixture.server.requests("/changed.bin").map(\.rangeStart) == [
                        0, fixture.rangeStart(continuing: 300_000),
                    ])
            } else {
                try Body.data(changed).expectMatches(try await download.fileURL)
                #expect(
                    fixture.server.requests("/changed.bin").map(\.rangeStart) == [
                        0, fixture.rangeStart(continuing: 300_000), 0,
                    ])
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
