@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// An empty store holds nothing but its lock: while its manager runs, a journal that holds no
/// record is its 8-byte header; when the manager is invalidated, the journal is gone, or, with
/// records left, compacted to their latest frames, which the next manager finds.
struct EmptyStoreTests {
    /// The length of the store's journal; nil if there is none.
    static func journalLength(_ fixture: Fixture) -> Int64? {
        POSIXFile.length(atPath: fixture.storeDirectory.appendingPathComponent(StoreJournal.fileName).path)
    }

    /// The frames of the store's journal, in order: each download's identifier, and whether the
    /// frame puts its record (or removes it).
    static func frames(_ fixture: Fixture) throws -> [(id: UUID, isPut: Bool)] {
        let path = fixture.storeDirectory.appendingPathComponent(StoreJournal.fileName).path
        var frames: [(id: UUID, isPut: Bool)] = []
        _ = try JournalFrames.scan(path: path, length: POSIXFile.length(atPath: path) ?? 0) { frame in
            frames.append((frame.id, frame.kind == .put))
        }
        return frames
    }

    @Test func aStoreWhoseDownloadsAllCompletedHoldsItsLockAndAnEmptyJournalThenOnlyItsLock() async throws {
        try await withFixture { fixture in
            let bodies = (0..<20).map { Body.pattern(count: 10_000 + Int64($0) * 1000, seed: 700 + UInt64($0)) }
            var downloads: [Download] = []
            for (index, body) in bodies.enumerated() {
                let url = fixture.serve("/done\(index).bin", body)
                downloads.append(await fixture.manager.download(from: url, to: .file(fixture.file("done\(index).bin"))))
            }
            for (download, body) in zip(downloads, bodies) {
                try body.expectMatches(try await download.fileURL)
            }
            // Sixty frames were appended (each download's request, its last bytes, its end); the
            // last removal cut the journal to its header.
            #expect(fixture.listing(fixture.storeDirectory) == [".lock", StoreJournal.fileName])
            #expect(Self.journalLength(fixture) == Int64(JournalFrames.fileHeaderSize))
            await fixture.manager.invalidate()
            #expect(fixture.listing(fixture.storeDirectory) == [".lock"])
        }
    }

    @Test func cancelledAndFailedDownloadsThatLeaveNoRecordLeaveOnlyTheLock() async throws {
        try await withFixture { fixture in
            var ended: [Download] = []
            // Failed: nothing at the URL.
            for index in 0..<5 {
                ended.append(
                    await fixture.manager.download(
                        from: fixture.server.url("/missing\(index)"), to: .file(fixture.file("missing\(index)"))))
            }
            // Cancelled while queued, and cancelled with bytes on disk (a record file of its own).
            let held = Body.pattern(count: 300_000, seed: 710)
            let heldURL = fixture.serve("/held.bin", held) { $0.faults = [.holdAfter(100_000)] }
            let running = await fixture.manager.download(from: heldURL, to: .file(fixture.file("held.bin")))
            for index in 0..<5 {
                let queued = await fixture.manager.download(
                    DownloadRequest(url: heldURL, to: .file(fixture.file("queued\(index).bin"))), startsPaused: true)
                await queued.cancel()
                ended.append(queued)
            }
            await running.waitForBytes(100_000)
            await running.pause()
            #expect(POSIXFile.exists(fixture.recordFile(running.id)))
            await running.cancel()
            ended.append(running)
            for download in ended {
                await #expect(throws: DownloadError.self) { try await download.fileURL }
            }
            // A failed download keeps its record, to be resumed: cancelled, it leaves none.
            #expect(fixture.storedRecords() == ended.prefix(5).map { "journal:\($0.id)" }.sorted())
            for download in ended.prefix(5) {
                await download.cancel()
            }
            #expect(fixture.storedRecords().isEmpty)
            #expect(fixture.listing(fixture.storeDirectory) == [".lock", StoreJournal.fileName])
            #expect(Self.journalLength(fixture) == Int64(JournalFrames.fileHeaderSize))
            await fixture.manager.invalidate()
            #expect(fixture.listing(fixture.storeDirectory) == [".lock"])
            fixture.server.release("/held.bin")
        }
    }

    @Test func aPausedDownloadOutlivesARelaunchAndTheCloseCompactsTheJournalToIt() async throws {
        try await withFixture(startsManager: false) { fixture in
            let kept = Body.pattern(count: 20_000, seed: 720)
            let keptURL = fixture.serve("/kept.bin", kept)
            let pausedID: Download.ID
            do {
                let manager = try fixture.makeManager()
                let paused = await manager.download(
                    DownloadRequest(url: keptURL, to: .file(fixture.file("kept.bin"))), startsPaused: true)
                pausedID = paused.id
                for index in 0..<40 {
                    let body = Body.pattern(count: 5_000, seed: 730 + UInt64(index))
                    let url = fixture.serve("/other\(index).bin", body)
                    let download = await manager.download(from: url, to: .file(fixture.file("other\(index).bin")))
                    try body.expectMatches(try await download.fileURL)
                }
                // 121 frames, of which one is in use: the paused download's.
                let before = try #require(Self.journalLength(fixture))
                #expect(try Self.frames(fixture).count == 121)
                await manager.invalidate()
                let after = try #require(Self.journalLength(fixture))
                let frames = try Self.frames(fixture)
                #expect(frames.count == 1 && frames.first?.id == pausedID.rawValue && frames.first?.isPut == true)
                // The header and that one frame: a record of about 500 bytes.
                #expect(after < 1_000 && after * 20 < before, "\(before) bytes before the close, \(after) after")
            }
            let relaunched = try fixture.makeManager()
            let restored = try #require(await relaunched.downloads.first)
            #expect(restored.id == pausedID)
            await restored.resume()
            try kept.expectMatches(try await restored.fileURL)
            #expect(Self.journalLength(fixture) == Int64(JournalFrames.fileHeaderSize))
            await relaunched.invalidate()
            #expect(fixture.listing(fixture.storeDirectory) == [".lock"])
        }
    }
}
