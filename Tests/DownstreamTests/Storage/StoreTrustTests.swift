@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A store's records are obeyed: they name files to continue, to replace and to delete. So a
/// store others can write is refused, a record others could have written is set aside, a record
/// that names a partial file where Downstream does not put it is set aside, and nothing is deleted
/// that Downstream cannot have made. Each case is a reproduction of a planted record.
@Suite(.timeLimit(.minutes(1)))
struct StoreTrustTests {
    static let precious = Data("a file that is not the download's".utf8)
    static let isRoot = geteuid() == 0

    /// Writes `record` into the fixture's store as its manager would, in a file of its own.
    func plant(_ record: StoredDownload, in fixture: Fixture) throws {
        let store = try DownloadStore(
            identifier: "planter-\(UUID().uuidString)", directory: fixture.storeDirectory, sharedByProcesses: true)
        _ = try store.create(record)
        store.release()
    }

    /// A record of a download of `url` to `destination`, whose partial file is said to be `partial`.
    func record(
        _ url: URL, to destination: Destination, partial: URL, intent: StoredDownload.Intent
    ) -> StoredDownload {
        var record = StoredDownload(
            id: Download.ID(), request: DownloadRequest(url: url, to: destination), url: url,
            location: PartialLocation(path: partial.path))
        record.intent = intent
        return record
    }

    @Test(arguments: [0o777, 0o770, 0o702] as [mode_t])
    func aStoreOthersCanWriteIsRefusedNamingItAndWhatIsWrong(_ mode: mode_t) async throws {
        try await withFixture(startsManager: false) { fixture in
            try FileManager.default.createDirectory(at: fixture.storeDirectory, withIntermediateDirectories: true)
            #expect(chmod(fixture.storeDirectory.path, mode) == 0)
            let error = try #require(throws: DownloadError.self) { try fixture.makeManager() }
            #expect(error.kind == .managerUnavailable)
            #expect(
                error.reason
                    == "its store \(fixture.storeDirectory.path) cannot be used: its group or other users may write it "
                    + "(mode \(String(mode, radix: 8))): what they write there would be obeyed; make it writable by its "
                    + "owner only (chmod go-w)")
            #expect(fixture.listing(fixture.storeDirectory).isEmpty)
        }
    }

    @Test func dlSaysInOneLineWhyItCannotUseItsStore() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/a.bin", .pattern(count: 1_000, seed: 1))
            let store = DLChild.store(fixture)
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
            #expect(chmod(store.path, 0o777) == 0)
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 1)
            #expect(output.isEmpty)
            #expect(
                errors
                    == "dl: cannot start: its store \(store.path) cannot be used: its group or other users may write it "
                    + "(mode 777): what they write there would be obeyed; make it writable by its owner only "
                    + "(chmod go-w)\n")
            #expect(!fixture.listing().contains("a.bin"))
        }
    }

    @Test func aCancelledRecordThatNamesAnotherFileDeletesNothing() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out.bin", .pattern(count: 1_000, seed: 2))
            let victim = fixture.file("victim.txt")
            try Self.precious.writeWithoutSync(to: victim)
            let planted = record(url, to: .file(fixture.file("out.bin")), partial: victim, intent: .cancelled)
            try plant(planted, in: fixture)

            let manager = try fixture.makeManager()
            #expect(try Data(contentsOf: victim) == Self.precious)
            let issue = try #require(manager.restorationIssues.first)
            #expect(issue.recordURL == fixture.recordFile(planted.id).appendingPathExtension("refused"))
            #expect(
                issue.reason
                    == "\(victim.path) is not where Downstream puts the partial file of \(fixture.file("out.bin").path) "
                    + "(beside it in \(fixture.directory.path))")
            #expect(await manager.downloads.isEmpty)
        }
    }

    @Test func aPausedRecordThatNamesAnotherPlaceDoesNotBlockItsDestination() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 10_000, seed: 3)
            let url = fixture.serve("/out.bin", body)
            let elsewhere = fixture.file("elsewhere/out.bin.partial")
            let destination = fixture.file("out.bin")
            // In dl's store, which processes share: the record a dl would find for out.bin.
            try FileManager.default.createDirectory(at: DLChild.store(fixture), withIntermediateDirectories: true)
            let store = try DownloadStore(
                identifier: "planter", directory: DLChild.store(fixture), sharedByProcesses: true)
            _ = try store.create(record(url, to: .file(destination), partial: elsewhere, intent: .paused))
            store.release()

            let (status, output, errors) = try await DLChild.run(
                ["--overwrite", "-o", "out.bin", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(destination)
            #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        }
    }

    @Test func aRecordWhosePathsAreNotPlainIsSetAside() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out.bin", .pattern(count: 1_000, seed: 4))
            let destination = fixture.file("out.bin")
            // Beside the destination in words, elsewhere on disk.
            let sneaky = URL(fileURLWithPath: fixture.directory.path + "/../files/out.bin.partial")
            try plant(record(url, to: .file(destination), partial: sneaky, intent: .paused), in: fixture)
            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            #expect(manager.restorationIssues.first?.reason.hasSuffix("(not a plain absolute path)") == true)
        }
    }

    @Test func aRecordWhereDownstreamPutsPartialFilesIsRestored() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 5)
            let url = fixture.serve("/kept.bin", body)
            // Beside its file, in a directory, and in the partials directory.
            let partials = fixture.file("partials")
            for destination: Destination in [.file(fixture.file("kept.bin")), .directory(fixture.file("inbox"))] {
                for directory in [nil, partials] {
                    let location = PartialLocation(url: url, destination: destination, partialsDirectory: directory)
                    #expect(
                        PartialLocation.misplacement(
                            of: location.path, destinationPath: destination.path,
                            destinationIsDirectory: destination.fileURL == nil, partialsDirectory: partials.path)
                            == nil, "\(location.path)")
                }
                let separate = PartialLocation(
                    url: url, destination: destination, partialsDirectory: nil, separateFrom: Download.ID())
                #expect(
                    PartialLocation.misplacement(
                        of: separate.path, destinationPath: destination.path,
                        destinationIsDirectory: destination.fileURL == nil, partialsDirectory: nil) == nil)
            }
            try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("kept.bin")), partial: body, length: 50_000)
            let manager = try fixture.makeManager()
            #expect(manager.restorationIssues.isEmpty)
            let download = try #require(await manager.downloads.first)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func aCancelledRecordDeletesNoSecondNameOfAnotherFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out.bin", .pattern(count: 1_000, seed: 6))
            let destination = fixture.file("out.bin")
            let partial = fixture.file("out.bin.partial")
            let victim = fixture.file("victim.txt")
            try Self.precious.writeWithoutSync(to: victim)
            try FileManager.default.linkItem(at: victim, to: partial)
            try plant(record(url, to: .file(destination), partial: partial, intent: .cancelled), in: fixture)
            _ = try fixture.makeManager()
            // Where Downstream puts it, but not a file it made: a second name of another.
            #expect(FileManager.default.fileExists(atPath: partial.path))
            #expect(try Data(contentsOf: victim) == Self.precious)
        }
    }

    @Test(arguments: [0o666, 0o620] as [mode_t])
    func aRecordOthersCanWriteIsSetAside(_ mode: mode_t) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 100_000, seed: 7)
            let url = fixture.serve("/a.bin", body)
            let stored = try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("a.bin")), partial: body, length: 10_000
            ) { $0.intent = .cancelled }
            #expect(chmod(fixture.recordFile(stored.id).path, mode) == 0)
            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            let issue = try #require(manager.restorationIssues.first)
            #expect(issue.reason.hasPrefix("it is not to be trusted: its group or other users may write it"))
            // Not obeyed: the partial file it would have deleted is there.
            #expect(fileLength(fixture.file("a.bin.partial")) == 10_000)
        }
    }

    @Test(.enabled(if: isRoot, "only root can give a file to another user"))
    func aRecordOfAnotherUserIsSetAside() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 100_000, seed: 8)
            let url = fixture.serve("/a.bin", body)
            let stored = try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("a.bin")), partial: body, length: 10_000
            ) { $0.intent = .cancelled }
            #expect(chown(fixture.recordFile(stored.id).path, 65_534, 65_534) == 0)
            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            #expect(
                manager.restorationIssues.first?.reason
                    == "it is not to be trusted: it belongs to user 65534, not to this process's user 0")
            #expect(fileLength(fixture.file("a.bin.partial")) == 10_000)
        }
    }

    @Test func aJournalOthersCanWriteIsRefusedNamingIt() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/a.bin", .pattern(count: 1_000, seed: 9))
            _ = try fixture.leaveInterruptedDownload(of: url, to: .file(fixture.file("a.bin")), partial: nil)
            let journal = fixture.storeDirectory.appendingPathComponent(StoreJournal.fileName)
            #expect(chmod(journal.path, 0o646) == 0)
            let error = try #require(throws: DownloadError.self) { try fixture.makeManager() }
            #expect(error.kind == .managerUnavailable)
            #expect(error.reason.hasPrefix("its store \(journal.path) cannot be used: its group or other users may"))
        }
    }
}
