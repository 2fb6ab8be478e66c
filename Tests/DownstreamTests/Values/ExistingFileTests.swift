@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// What a download does with a file already at its destination, before it asks for anything:
/// fail without leaving a trace, use it, download again only if the server's changed, or take it
/// when it has the expected digest.
@Suite(.timeLimit(.minutes(2)))
struct ExistingFileTests {
    static let body = Body.pattern(count: 200_000, seed: 940)

    static func sha256(_ data: Data) -> Digest {
        var digest = RunningDigest(.sha256)
        data.withUnsafeBytes { digest.update($0) }
        return .sha256(digest.finalized().hexString)
    }

    /// Re-running a finished batch: every file is there. Each download fails before the first
    /// byte, says that nothing was downloaded, and leaves no record; once the file is moved away,
    /// asking again downloads it.
    @Test func aConflictBeforeTheFirstByteLeavesNoRecordAndSaysNothingWasKept() async throws {
        try await withFixture { fixture in
            let names = ["a.bin", "b.bin", "c.bin"]
            for name in names {
                let url = fixture.serve("/\(name)", Self.body)
                _ = try await fixture.manager.downloadFile(from: url, to: .file(fixture.file(name)))
            }
            let requestsBefore = fixture.server.requests().count
            for name in names {
                let download = await fixture.manager.download(
                    from: fixture.server.url("/\(name)"), to: .file(fixture.file(name)))
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == .destinationExists)
                #expect(!error.isResumable)
                #expect(error.description.contains("Nothing was downloaded"))
                #expect(!error.description.contains("kept"))
            }
            #expect(fixture.storedRecords().isEmpty)
            #expect(fixture.server.requests().count == requestsBefore)
            #expect(fixture.listing() == names)

            try FileManager.default.removeItem(at: fixture.file("a.bin"))
            let again = await fixture.manager.download(
                from: fixture.server.url("/a.bin"), to: .file(fixture.file("a.bin")))
            try Self.body.expectMatches(try await again.fileURL)
        }
    }

    @Test func anExistingFileIsUsedWithoutARequestAcrossARelaunch() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/use.bin", Self.body)
            let destination = Destination.file(fixture.file("use.bin"), ifExists: .useExisting)
            do {
                let manager = try fixture.makeManager()
                _ = try await manager.downloadFile(from: url, to: destination)
                await manager.invalidate()
            }
            let manager = try fixture.makeManager()
            let download = await manager.download(from: url, to: destination)
            #expect(try await download.fileURL == fixture.file("use.bin"))
            #expect(await download.allEvents() == [.queued, .running, .completed(fixture.file("use.bin"))])
            #expect(fixture.server.requests("/use.bin").count == 1)
            #expect(fixture.storedRecords().isEmpty)
            try Self.body.expectMatches(fixture.file("use.bin"))
        }
    }

    @Test func aDirectoryDestinationLooksForTheNameTheURLGives() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/docs/notes.txt", Self.body)
            try Data("mine".utf8).writeWithoutSync(to: fixture.file("notes.txt"))
            let file = try await fixture.manager.downloadFile(
                from: url, to: .directory(fixture.directory, ifExists: .useExisting))
            #expect(file == fixture.file("notes.txt"))
            #expect(try Data(contentsOf: file) == Data("mine".utf8))
            #expect(fixture.server.requests().isEmpty)
        }
    }

    /// A paused download whose destination appeared meanwhile completes with it when resumed,
    /// and leaves neither its partial file nor its record.
    @Test func aFileThatAppearsWhilePausedIsUsedOnResume() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/paused.bin", Self.body) { $0.faults = [.holdAfter(1000)] }
            let destination = fixture.file("paused.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination, ifExists: .useExisting))
            await download.waitForBytes(1000)
            await download.pause()
            try Data("theirs".utf8).writeWithoutSync(to: destination)
            await download.resume()
            #expect(try await download.fileURL == destination)
            #expect(try Data(contentsOf: destination) == Data("theirs".utf8))
            #expect(fixture.listing() == ["paused.bin"])
            #expect(fixture.storedRecords().isEmpty)
            #expect(fixture.server.requests("/paused.bin").count == 1)
        }
    }

    /// A file that appears while the download runs wins: the downloaded bytes are discarded.
    @Test func aFileThatAppearsMeanwhileIsUsed() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/late.bin", Self.body) { $0.faults = [.holdAfter(1000)] }
            let destination = fixture.file("late.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination, ifExists: .useExisting))
            await download.waitForBytes(1000)
            try Data("theirs".utf8).writeWithoutSync(to: destination)
            fixture.server.release("/late.bin")
            #expect(try await download.fileURL == destination)
            #expect(try Data(contentsOf: destination) == Data("theirs".utf8))
            #expect(fixture.listing() == ["late.bin"])
        }
    }

    /// `replaceIfChanged`: the copy delivered last time is asked about with its validators, kept
    /// in the store; `304` keeps it, a new version replaces it.
    @Test func aDeliveredCopyIsDownloadedAgainOnlyWhenTheServersFileChanged() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/news.xml", Self.body)
            let destination = Destination.file(fixture.file("news.xml"), ifExists: .replaceIfChanged)
            do {
                let manager = try fixture.makeManager()
                _ = try await manager.downloadFile(from: url, to: destination)
                await manager.invalidate()
            }
            do {
                // Relaunched: unchanged on the server.
                let manager = try fixture.makeManager()
                let download = await manager.download(from: url, to: destination)
                #expect(try await download.fileURL == fixture.file("news.xml"))
                let asked = try #require(fixture.server.requests("/news.xml").last)
                #expect(asked.header("If-None-Match") == "\"\(StableHash.hex("/news.xml"))\"")
                #expect(asked.header("If-Modified-Since") == "Sun, 01 Nov 2026 10:00:00 GMT")
                #expect(asked.status == 304)
                #expect(fixture.storedRecords().isEmpty)
                try Self.body.expectMatches(fixture.file("news.xml"))
                await manager.invalidate()
            }
            // A new version on the server.
            let newer = Body.pattern(count: 150_000, seed: 941)
            fixture.serve("/news.xml", newer) {
                $0.etag = "\"v2\""
                $0.lastModified = "Mon, 23 Nov 2026 10:00:00 GMT"
            }
            let manager = try fixture.makeManager()
            let file = try await manager.downloadFile(from: url, to: destination)
            try newer.expectMatches(file)
            #expect(fixture.server.requests("/news.xml").map(\.status) == [206, 304, 206])
            #expect(fixture.listing() == ["news.xml"])
            // And that version is what the next request asks about.
            _ = try await manager.downloadFile(from: url, to: destination)
            #expect(fixture.server.requests("/news.xml").last?.header("If-None-Match") == "\"v2\"")
            #expect(fixture.server.requests("/news.xml").last?.status == 304)
        }
    }

    /// A copy this manager did not deliver (or one changed since) is asked about by its
    /// modification time, as curl's `-z` does.
    @Test func anUnknownCopyIsAskedAboutByItsModificationTime() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/feed.xml", Self.body)
            let destination = fixture.file("feed.xml")
            try Data("recent".utf8).writeWithoutSync(to: destination)
            let recent = Date(timeIntervalSince1970: 1_795_000_000)  // After the server's Last-Modified.
            try FileManager.default.setAttributes([.modificationDate: recent], ofItemAtPath: destination.path)
            _ = try await fixture.manager.downloadFile(from: url, to: .file(destination, ifExists: .replaceIfChanged))
            let first = try #require(fixture.server.requests("/feed.xml").last)
            #expect(first.header("If-None-Match") == nil)
            #expect(first.header("If-Modified-Since") == HTTPDate.format(recent))
            #expect(first.status == 304)
            #expect(try Data(contentsOf: destination) == Data("recent".utf8))

            let old = Date(timeIntervalSince1970: 1_700_000_000)  // Before it.
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: destination.path)
            _ = try await fixture.manager.downloadFile(from: url, to: .file(destination, ifExists: .replaceIfChanged))
            #expect(fixture.server.requests("/feed.xml").last?.status == 206)
            try Self.body.expectMatches(destination)
        }
    }

    /// A file with the expected digest is the file, whatever the policy, across a relaunch.
    @Test func aFileWithTheExpectedDigestCompletesWithoutARequest() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/image.iso", Self.body)
            var request = DownloadRequest(url: url, to: .file(fixture.file("image.iso")))
            request.expectedDigest = Self.sha256(Self.body.bytes(0..<Self.body.count))
            do {
                let manager = try fixture.makeManager()
                _ = try await manager.downloadFile(request)
                await manager.invalidate()
            }
            let manager = try fixture.makeManager()
            #expect(try await manager.downloadFile(request) == fixture.file("image.iso"))
            #expect(fixture.server.requests("/image.iso").count == 1)
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func aFileWithAnotherDigestFollowsThePolicy() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/image.iso", Self.body)
            try Data("not the image".utf8).writeWithoutSync(to: fixture.file("image.iso"))
            var request = DownloadRequest(url: url, to: .directory(fixture.directory))
            request.expectedDigest = Self.sha256(Self.body.bytes(0..<Self.body.count))
            // A unique name: the right file is downloaded beside the wrong one.
            let file = try await fixture.manager.downloadFile(request)
            #expect(file == fixture.file("image (1).iso"))
            try Self.body.expectMatches(file)

            // Use the existing file: it is not the file, and may not be replaced.
            try FileManager.default.removeItem(at: file)
            request.destination = .directory(fixture.directory, ifExists: .useExisting)
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .destinationExists)
            #expect(fixture.server.requests("/image.iso").count == 1)
        }
    }
}
