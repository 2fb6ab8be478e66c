import Foundation
import Testing

@testable import Downstream

/// A record kept as its origin reads back, changes and is written exactly as a whole one.
struct DownloadRecordFileTests {
    let url = URL(string: "https://example.com/episode.mp3")!

    /// A store of its own for each test, in a directory of its own.
    static func withStore(_ body: (DownloadStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try DownloadStore(identifier: "record-\(UUID().uuidString)", directory: directory)
        defer { store.release() }
        try body(store, directory)
    }

    @Test func aRecordKeptAsItsOriginReadsChangesAndWritesAsAWholeOne() throws {
        try Self.withStore { store, directory in
            var request = DownloadRequest(url: url, to: .directory(URL(fileURLWithPath: "/tmp/podcasts")))
            request.metadata = ["title": "Episode"]
            let location = PartialLocation(url: url, destination: request.destination, partialsDirectory: nil)
            let id = DownloadID()
            var expected = StoredDownload(id: id, request: request, url: url, location: location)
            expected.intent = .paused
            let recordFile = DownloadRecordFile(
                store: store, record: expected, place: try store.create(expected),
                origin: .request(id: id, request: request, location: location, created: expected.created))
            let stored = { DownloadStore.records(in: directory).first { $0.id == id } }
            #expect(recordFile.record == expected)
            #expect(stored() == expected)
            // Its origin's: no sources, and it starts over.
            #expect(recordFile.sourcesAndResume == nil)
            #expect(recordFile.resume == .startingOver(url: url))

            // An intent, then a priority, then bytes to protect: each read back and on disk.
            try recordFile.update { $0.intent = .active }
            expected.intent = .active
            #expect(recordFile.record == expected)
            #expect(stored() == expected)
            try recordFile.update { $0.request.priority = 900 }
            expected.request.priority = 900
            #expect(recordFile.record == expected)
            #expect(stored() == expected)
            try recordFile.update {
                $0.resume.isResumable = true
                $0.resume.expectedLength = 1000
                $0.resume.durableLength = 500
            }
            expected.resume.isResumable = true
            expected.resume.expectedLength = 1000
            expected.resume.durableLength = 500
            #expect(recordFile.record == expected)
            #expect(stored() == expected)
            #expect(POSIXFile.exists(URL(fileURLWithPath: store.path(for: id))))
            #expect(recordFile.sourcesAndResume?.resume == expected.resume)
            #expect(recordFile.resume == expected.resume)

            recordFile.remove()
            #expect(stored() == nil)
        }
    }

    /// The frames in the journal of the store in `directory`, in order.
    static func frameKinds(in directory: URL) throws -> [JournalFrames.Kind] {
        let journal = POSIXFile.path(StoreJournal.fileName, in: directory.path)
        var kinds: [JournalFrames.Kind] = []
        _ = try JournalFrames.scan(path: journal, length: POSIXFile.length(atPath: journal) ?? 0) {
            kinds.append($0.kind)
        }
        return kinds
    }

    /// An intent that does not change writes nothing (a queued download that starts); one that
    /// changes is written and read back.
    @Test func anUnchangedIntentWritesNothingAndAChangedOneIsWritten() throws {
        try Self.withStore { store, directory in
            let request = DownloadRequest(url: url, to: .directory(URL(fileURLWithPath: "/tmp/podcasts")))
            let location = PartialLocation(url: url, destination: request.destination, partialsDirectory: nil)
            let id = DownloadID()
            let record = StoredDownload(id: id, request: request, url: url, location: location)
            let recordFile = DownloadRecordFile(
                store: store, record: record, place: try store.create(record),
                origin: .request(id: id, request: request, location: location, created: record.created))
            try recordFile.update(intent: record.intent)
            #expect(try Self.frameKinds(in: directory) == [.put])
            let other: StoredDownload.Intent = record.intent == .paused ? .active : .paused
            try recordFile.update(intent: other)
            #expect(try Self.frameKinds(in: directory) == [.put, .put])
            #expect(recordFile.record.intent == other)
            #expect(DownloadStore.records(in: directory).first { $0.id == id }?.intent == other)
            try recordFile.update(intent: other)
            #expect(try Self.frameKinds(in: directory) == [.put, .put])
        }
    }

    /// A record is removed once: a second removal writes nothing (the journal counts each removal
    /// frame against the frames in use).
    @Test func aRecordRemovedTwiceWritesOneRemovalFrame() throws {
        try Self.withStore { store, directory in
            let request = DownloadRequest(url: url, to: .directory(URL(fileURLWithPath: "/tmp/podcasts")))
            let location = PartialLocation(url: url, destination: request.destination, partialsDirectory: nil)
            // Another record stays: a journal that holds none is cut to its header.
            _ = try store.create(StoredDownload(id: DownloadID(), request: request, url: url, location: location))
            let record = StoredDownload(id: DownloadID(), request: request, url: url, location: location)
            let recordFile = DownloadRecordFile(store: store, record: record, place: try store.create(record))
            recordFile.remove()
            recordFile.remove()
            #expect(try Self.frameKinds(in: directory) == [.put, .put, .remove])
        }
    }
}
