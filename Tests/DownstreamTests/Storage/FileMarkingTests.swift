@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// What the system is told about the files Downstream writes: partial files, records and the
/// store stay out of backups and writable while the device is locked; a delivered file is backed
/// up, with the protection its request asks for. On Linux the marks go to a recorder (the seam);
/// on Apple platforms they are resource values.
@Suite(.timeLimit(.minutes(1)))
struct FileMarkingTests {
    /// Every mark asked for, in order.
    final class Recorder: FileMarking {
        let marks = Locked<[(path: String, marks: FileMarks)]>([])

        func mark(_ path: String, _ marks: FileMarks) {
            self.marks.withLock { $0.append((path, marks)) }
        }

        /// The marks given to `path`.
        func marks(of path: String) -> [FileMarks] {
            marks.withLock { $0.filter { $0.path == path }.map(\.marks) }
        }
    }

    static let own = FileMarks(excludedFromBackup: true, protection: .completeUntilFirstUserAuthentication)

    @Test func ownFilesAreLeftOutOfBackupsAndTheDeliveredFileIsNot() async throws {
        let recorder = Recorder()
        try await withFixture({ $0.storage.fileMarking = recorder }) { fixture in
            let body = Body.pattern(count: 300_000, seed: 2210)
            let url = fixture.serve("/marked.bin", body)
            let file = try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("marked.bin")))
            try body.expectMatches(file)
            #expect(recorder.marks(of: fixture.storeDirectory.path) == [Self.own])
            #expect(recorder.marks(of: fixture.file("marked.bin.partial").path) == [Self.own])
            #expect(
                recorder.marks(of: file.path) == [FileMarks(excludedFromBackup: false, protection: nil)])
        }
    }

    /// The move into place (with the delivered file's marks, its times and the record's last
    /// frame) runs on a file-work thread: it may wait for a busy disk, and a job of Swift's pool
    /// that waits holds one of its few threads.
    @Test func theDeliveredFileIsPlacedOnAFileWorkThread() async throws {
        final class ThreadRecorder: FileMarking {
            let key: DispatchSpecificKey<Bool>
            let markedOnFileWork = Locked<[String: Bool]>([:])
            init(key: DispatchSpecificKey<Bool>) { self.key = key }
            func mark(_ path: String, _ marks: FileMarks) {
                let isFileWork = DispatchQueue.getSpecific(key: key) == true
                markedOnFileWork.withLock { $0[path] = isFileWork }
            }
        }
        let key = DispatchSpecificKey<Bool>()
        FileWork.queue.setSpecific(key: key, value: true)
        let recorder = ThreadRecorder(key: key)
        try await withFixture({ $0.storage.fileMarking = recorder }) { fixture in
            let body = Body.pattern(count: 50_000, seed: 2213)
            let url = fixture.serve("/placed.bin", body)
            let file = try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("placed.bin")))
            try body.expectMatches(file)
            #expect(recorder.markedOnFileWork.withLock { $0[file.path] } == true)
        }
    }

    @Test func theDeliveredFileTakesTheProtectionItsRequestAsksFor() async throws {
        let recorder = Recorder()
        try await withFixture({ $0.storage.fileMarking = recorder }) { fixture in
            let url = fixture.serve("/secret.bin", .pattern(count: 10_000, seed: 2211))
            var request = DownloadRequest(url: url, to: .file(fixture.file("secret.bin")))
            request.fileProtection = .complete
            let file = try await fixture.manager.download(request).fileURL
            #expect(recorder.marks(of: file.path) == [FileMarks(excludedFromBackup: false, protection: .complete)])
        }
    }

    @Test func theMarksOfOwnFilesAreConfigurable() async throws {
        let recorder = Recorder()
        try await withFixture({
            $0.storage.fileMarking = recorder
            $0.storage.fileProtection = .none
            $0.storage.excludesFromBackup = false
        }) { fixture in
            let url = fixture.serve("/plain.bin", .pattern(count: 10_000, seed: 2212))
            _ = try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("plain.bin")))
            let mine = FileMarks(excludedFromBackup: false, protection: FileProtection.none)
            #expect(recorder.marks(of: fixture.storeDirectory.path) == [mine])
            #expect(recorder.marks(of: fixture.file("plain.bin.partial").path) == [mine])
        }
    }

    /// Segments write into a partial file made for all of them: it is marked before the first.
    @Test func aSegmentedPartialIsMarked() async throws {
        let recorder = Recorder()
        try await withFixture({
            $0.storage.fileMarking = recorder
            SegmentedDownloadTests.segmented(4)(&$0)
        }) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 2213)
            let url = fixture.serve("/parts.bin", body)
            try body.expectMatches(
                try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("parts.bin"))))
            let partial = fixture.file("parts.bin.partial").path
            // The first segment's request, then the file made for the others.
            #expect(recorder.marks(of: partial).count == 2)
            #expect(recorder.marks(of: partial).allSatisfy { $0 == Self.own })
        }
    }

    /// The protection a request asks for is kept with its record: a relaunch delivers with it.
    @Test func aRelaunchKeepsTheProtectionItsRequestAskedFor() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/kept.bin", .pattern(count: 10_000, seed: 2214))
            var request = DownloadRequest(url: url, to: .file(fixture.file("kept.bin")))
            request.fileProtection = .completeUnlessOpen
            let record = StoredDownload(
                id: DownloadID(), request: request, url: url,
                location: PartialLocation(path: fixture.file("kept.bin.partial").path))
            let decoded = try JSONDecoder().decode(StoredDownload.self, from: record.json)
            #expect(decoded.downloadRequest.fileProtection == .completeUnlessOpen)
        }
    }
}
