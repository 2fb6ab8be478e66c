@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Record writes cost file system calls: a download writes its record only when what a relaunch
/// would read changes, and a file of its own only when it protects bytes.
struct RecordWritesTests {
    @Test func aSmallDownloadWritesThreeJournalFramesAndNoFileOfItsOwn() async throws {
        let writes = Locked(0)
        let filesSeen = Locked<Set<String>>([])
        let storeDirectory = Locked<URL?>(nil)
        try await withFixture({ configuration in
            storeDirectory.withLock { $0 = configuration.storage.directory }
            configuration.storage.recordWriteObserver = {
                writes.withLock { $0 += 1 }
                // In the middle of the write: every file the store has then.
                let directory = storeDirectory.withLock { $0 }?.path ?? "/nonexistent"
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                filesSeen.withLock { $0.formUnion(names) }
            }
        }) { fixture in
            let body = Body.pattern(count: 10_000, seed: 120)
            let url = fixture.serve("/small.bin", body)
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("small.bin")))
            try body.expectMatches(try await download.fileURL)
            // Made with the request, updated once with every byte received (so that a process
            // killed before the file is moved into place knows it was complete), then removed:
            // three frames appended to the journal.
            #expect(writes.value == 3)
            #expect(filesSeen.value == [".lock", StoreJournal.fileName])
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func aDownloadWithBytesToProtectMovesFromTheJournalToAFileOfItsOwn() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 300_000, seed: 123)
            let url = fixture.serve("/protected.bin", body) { $0.faults = [.holdAfter(100_000)] }
            let download = await fixture.manager.download(
                DownloadRequest(url: url, to: .file(fixture.file("protected.bin"))), startsPaused: true)
            // Queued: in the journal only.
            #expect(fixture.storedRecords() == ["journal:\(download.id)"])
            await download.resume()
            await download.waitForBytes(100_000)
            // A pause makes the bytes on disk durable: the record protects them, in a file.
            await download.pause()
            #expect(fixture.storedRecords() == [fixture.recordFile(download.id).lastPathComponent])
            let record = try #require(fixture.storedRecord(download.id))
            #expect(record.resume.durableLength == 100_000)
            #expect(record.intent == .paused)
            fixture.server.release("/protected.bin")
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func aRecordIsWrittenBeforeAResponseReplacesTheBytesItDescribes() async throws {
        try await withFixture(startsManager: false) { fixture in
            let old = Body.pattern(count: 200_000, seed: 121)
            let new = Body.pattern(count: 200_000, seed: 122)
            let url = fixture.serve("/changed.bin", new) {
                $0.etag = "\"new\""
                // Held before the first byte: the record on disk is what the response made it.
                $0.faults = [.holdAfter(0)]
            }
            let stored = try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("changed.bin")), partial: old, length: 50_000)
            #expect(stored.resume.isResumable)
            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            await download.resume()
            // The server's file changed (a 200 to the range request): the download starts over,
            // and the old record must not survive next to the new bytes.
            await download.waitForEvent { $0 == .restarted }
            let record = try #require(fixture.storedRecord(download.id))
            #expect(record.resume.validator.etag == "\"new\"")
            #expect(record.resume.durableLength == 0)
            fixture.server.release("/changed.bin")
            try new.expectMatches(try await download.fileURL)
        }
    }
}
