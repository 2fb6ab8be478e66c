@_spi(Testing) @testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Record writes cost file system calls: a download writes its record only when what a relaunch
/// would read changes.
struct RecordWritesTests {
    @Test func aSmallDownloadUpdatesItsRecordOnceBeforeItIsRemoved() async throws {
        let updates = Locked(0)
        try await withFixture({ configuration in
            configuration.storage.recordWriteObserver = { updates.withLock { $0 += 1 } }
        }) { fixture in
            let body = Body.pattern(count: 10_000, seed: 120)
            let url = fixture.serve("/small.bin", body)
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("small.bin")))
            try body.expectMatches(try await download.fileURL)
            // Made with the request, updated once with every byte received (so that a process
            // killed before the file is moved into place knows it was complete), then removed.
            #expect(updates.value == 1)
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
