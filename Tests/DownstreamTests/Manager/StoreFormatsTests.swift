@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A store written by earlier versions (a file per record, queued downloads included) still
/// loads beside the journal, and a record in both places (a process killed while it moved to
/// its file) is restored once, from its file.
struct StoreFormatsTests {
    @Test func recordFilesOfEarlierVersionsLoadBesideTheJournal() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/formats.bin", .pattern(count: 1000, seed: 130))
            let request = { (name: String) in DownloadRequest(url: url, to: .file(fixture.file(name))) }
            let record = { (name: String, note: String) in
                var record = StoredDownload(
                    id: Download.ID(), request: request(name), url: url,
                    location: PartialLocation(
                        url: url, destination: request(name).destination, partialsDirectory: nil))
                record.intent = .paused
                record.request.metadata = ["note": note]
                return record
            }
            let legacy = record("legacy.bin", "a file, as earlier versions wrote every record")
            let journaled = record("journaled.bin", "in the journal")
            var moved = record("moved.bin", "in the journal, then")
            do {
                let store = try DownloadStore(
                    identifier: fixture.configuration.identifier, directory: fixture.storeDirectory)
                #expect(try store.create(journaled).frameLength != nil)
                #expect(try store.create(moved).frameLength != nil)
                store.release()
            }
            moved.request.metadata = ["note": "in its file"]
            for stored in [legacy, moved] {
                let file = RecordSlots.file(stored.json, at: RecordSlots.firstPosition(for: stored.json.count))
                try Data(file).writeWithoutSync(to: fixture.recordFile(stored.id))
            }

            let manager = try fixture.makeManager()
            #expect(manager.restorationIssues.isEmpty)
            let restored = await manager.downloads
            #expect(restored.count == 3)
            let notes = Dictionary(uniqueKeysWithValues: restored.map { ($0.id, $0.request.metadata["note"]) })
            #expect(notes[legacy.id] == "a file, as earlier versions wrote every record")
            #expect(notes[journaled.id] == "in the journal")
            #expect(notes[moved.id] == "in its file")
            // The journal no longer holds the record that has a file.
            #expect(!fixture.storedRecords().contains("journal:\(moved.id)"))
            for download in restored {
                await download.resume()
                _ = try await download.fileURL
            }
            #expect(fixture.storedRecords().isEmpty)
        }
    }
}
