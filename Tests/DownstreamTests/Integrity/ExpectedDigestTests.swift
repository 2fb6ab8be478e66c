@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A request's expected digest: computed while the file is written, across pauses and
/// relaunches, and checked before the file is delivered.
@Suite(.timeLimit(.minutes(2)))
struct ExpectedDigestTests {
    static func digest(_ algorithm: Digest.Algorithm, of body: Body) -> Digest {
        var digest = RunningDigest(algorithm)
        body.bytes(0..<body.count).withUnsafeBytes { digest.update($0) }
        return Digest(algorithm, hex: digest.finalized().hexString)
    }

    /// A digest of the right algorithm that no served body has.
    static func wrongDigest(_ algorithm: Digest.Algorithm = .sha256) -> Digest {
        Digest(algorithm, hex: String(repeating: "ab", count: algorithm.byteCount))
    }

    @Test(arguments: [Digest.Algorithm.sha512, .sha384, .sha256, .sha1, .md5])
    func aFileWithTheExpectedDigestIsDelivered(_ algorithm: Digest.Algorithm) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_500_001, seed: 600)
            let url = fixture.serve("/good.bin", body)
            var request = DownloadRequest(url: url, to: .file(fixture.file("good.bin")))
            // Upper case as some publishers print it.
            request.expectedDigest = Digest(algorithm, hex: Self.digest(algorithm, of: body).hexValue.uppercased())
            let download = await fixture.manager.download(request)
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func aWrongDigestFailsDiscardsTheBytesAndLeavesTheDestinationAlone() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 800_000, seed: 601)
            let url = fixture.serve("/wrong.bin", body)
            let destination = fixture.file("wrong.bin")
            try Data("the file the user already has".utf8).writeWithoutSync(to: destination)
            var request = DownloadRequest(url: url, to: .file(destination, ifExists: .replace))
            request.expectedDigest = Self.wrongDigest()
            let download = await fixture.manager.download(request)

            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.reason.contains("expected SHA-256 \(Self.wrongDigest().hexValue)"))
            #expect(error.reason.contains(Self.digest(.sha256, of: body).hexValue))
            #expect(error.path == nil)
            #expect(!error.isResumable)
            #expect(try String(contentsOf: destination, encoding: .utf8) == "the file the user already has")
            #expect(!FileManager.default.fileExists(atPath: download.location.path))
            #expect(download.currentProgress.bytesReceived == 0)
            #expect(fixture.storedRecord(download.id)?.intent == .failed)

            // Resuming starts over from the first byte (and the server still sends the same file).
            await download.resume()
            _ = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(fixture.server.requests("/wrong.bin").map(\.rangeStart) == [0, 0])
        }
    }

    @Test func aWrongDigestKeepsTheBytesWhenAsked() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 500_000, seed: 602)
            let url = fixture.serve("/kept.bin", body)
            var request = DownloadRequest(url: url, to: .file(fixture.file("kept.bin")))
            request.expectedDigest = Self.wrongDigest(.md5)
            request.onRejectedFile = .keep
            let download = await fixture.manager.download(request)

            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            #expect(error.path == download.location.path)
            try body.expectMatches(URL(fileURLWithPath: try #require(error.path)))
            #expect(!FileManager.default.fileExists(atPath: fixture.file("kept.bin").path))
        }
    }

    @Test func anInvalidDigestIsRefusedBeforeAnyRequest() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/invalid.bin", .pattern(count: 10))
            for digest in [Digest.sha256("abc"), .sha1(String(repeating: "z", count: 40)), .md5("")] {
                var request = DownloadRequest(url: url, to: .file(fixture.file("invalid.bin")))
                request.expectedDigest = digest
                let download = await fixture.manager.download(request)
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == .invalidRequest)
                #expect(error.reason.contains("hexadecimal"))
            }
            #expect(fixture.server.requests("/invalid.bin").isEmpty)
        }
    }

    @Test func theDigestGoesOnAcrossPauseResumeAndRanges() async throws {
        // Ranges of 256 KiB: the file comes in several requests, and a pause cuts one short.
        try await withFixture({ $0.network.maximumBytesPerRequest = 262_144 }) { fixture in
            let body = Body.pattern(count: 1_000_003, seed: 603)
            // The second range holds once 100,000 new bytes are on disk (after the overlap).
            let overlap = 262_144 - fixture.rangeStart(continuing: 262_144)
            let url = fixture.serve("/paused.bin", body) { $0.faults = [.none, .holdAfter(100_000 + overlap)] }
            var request = DownloadRequest(url: url, to: .file(fixture.file("paused.bin")))
            request.expectedDigest = Self.digest(.sha256, of: body)
            let download = await fixture.manager.download(request)
            await download.waitForBytes(262_144 + 100_000)
            await download.pause()
            // The record holds the digest of exactly the bytes on disk.
            let stored = try #require(fixture.storedRecord(download.id)?.resume.digest)
            #expect(stored.length == 362_144)
            #expect(fileLength(download.location.partialURL) == 362_144)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/paused.bin").map(\.rangeStart).contains(
                    fixture.rangeStart(continuing: 362_144)))
        }
    }

    @Test func aRelaunchGoesOnFromTheSavedDigestAndReadsOnlyTheNewerBytes() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 900_000, seed: 604)
            let url = fixture.serve("/relaunch.bin", body) { $0.faults = [.holdAfter(300_000)] }
            var request = DownloadRequest(url: url, to: .file(fixture.file("relaunch.bin")))
            request.expectedDigest = Self.digest(.sha1, of: body)
            let location: PartialLocation
            do {
                let manager = try fixture.makeManager()
                let download = await manager.download(request)
                await download.waitForBytes(300_000)
                await download.pause()
                location = download.location
                // Given up at once, as a process that ends gives it up (not when the last task
                // that holds it lets go: a loaded run made the next manager too early).
                await manager.invalidate()
            }
            // Bytes written after the last checkpoint, as a process killed then leaves them.
            let handle = try FileHandle(forWritingTo: location.partialURL)
            try handle.seekToEnd()
            try handle.write(contentsOf: body.bytes(300_000..<450_000))
            try handle.close()

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            #expect(download.request.expectedDigest == request.expectedDigest)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/relaunch.bin").map(\.rangeStart) == [
                    0, fixture.rangeStart(continuing: 450_000),
                ])
        }
    }

    @Test func withoutASavedDigestThePartialIsHashedFromTheDisk() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 600_000, seed: 605)
            let url = fixture.serve("/legacy.bin", body)
            let good = fixture.file("good.bin")
            let damaged = fixture.file("damaged.bin")
            try fixture.leaveInterruptedDownload(of: url, to: .file(good), partial: body, length: 200_000) {
                $0.request.expectedDigest = "sha256:\(Self.digest(.sha256, of: body).hexValue)"
            }
            // The same, with a byte of the partial changed while no process ran.
            let damagedRecord = try fixture.leaveInterruptedDownload(
                of: url, to: .file(damaged), partial: body, length: 200_000
            ) { $0.request.expectedDigest = "sha256:\(Self.digest(.sha256, of: body).hexValue)" }
            let handle = try FileHandle(forUpdating: damagedRecord.location.partialURL)
            try handle.seek(toOffset: 1_234)
            try handle.write(contentsOf: Data([0xFF ^ body.bytes(1_234..<1_235)[0]]))
            try handle.close()

            let manager = try fixture.makeManager()
            await manager.resumeAll()
            for download in await manager.downloads {
                let outcome = await download.outcome()
                if download.request.destination.fileURL == good {
                    try body.expectMatches(try outcome.get())
                } else {
                    #expect(throws: DownloadError.self) { try outcome.get() }
                    #expect((try? outcome.get()) == nil)
                    if case .failure(let error) = outcome {
                        #expect(error.kind == .integrityCheckFailed)
                    }
                }
            }
            #expect(!FileManager.default.fileExists(atPath: damaged.path))
        }
    }

    @Test func aSystemDownloadIsHashedFromTheDiskBeforeDelivery() async throws {
        try await withFixture(SystemEngineTests.foreground) { fixture in
            let body = Body.pattern(count: 700_000, seed: 606)
            let url = fixture.serve("/system.bin", body)
            var good = DownloadRequest(url: url, to: .file(fixture.file("good.bin")))
            good.expectedDigest = Self.digest(.sha256, of: body)
            var bad = DownloadRequest(url: url, to: .file(fixture.file("bad.bin")))
            bad.expectedDigest = Self.wrongDigest()
            try body.expectMatches(try await fixture.manager.download(good).fileURL)
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.download(bad).fileURL
            }
            #expect(error.kind == .integrityCheckFailed)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("bad.bin").path))
        }
    }
}
