@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Downstream writes its own files only: a partial file or a store that is a symbolic link, a
/// second name of another file, or another user's file is refused with an error naming it, and
/// nothing is written through it.
@Suite(.timeLimit(.minutes(1)))
struct OwnFilesTests {
    static let precious = Data("a file that is not the download's".utf8)
    static let isRoot = geteuid() == 0

    /// Downloads `a.bin` into the fixture's directory, where `plant` left something at
    /// `a.bin.partial`; returns the error.
    func downloadOverPlanted(
        _ fixture: Fixture, _ plant: (_ partial: URL, _ victim: URL) throws -> Void
    ) async throws -> (error: DownloadError, partial: URL, victim: URL) {
        let body = Body.pattern(count: 300_000, seed: 2101)
        let url = fixture.serve("/a.bin", body)
        let partial = fixture.file("a.bin.partial")
        let victim = fixture.file("victim.txt")
        try Self.precious.writeWithoutSync(to: victim)
        try plant(partial, victim)
        let download = await fixture.manager.download(from: url, to: .file(fixture.file("a.bin")))
        let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
        return (error, partial, victim)
    }

    func expectUntouched(_ fixture: Fixture, _ victim: URL, _ error: DownloadError) throws {
        #expect(error.kind == .fileSystem, "\(error)")
        #expect(error.description.contains(fixture.file("a.bin.partial").path), "\(error)")
        #expect(try Data(contentsOf: victim) == Self.precious)
        #expect(!FileManager.default.fileExists(atPath: fixture.file("a.bin").path))
    }

    @Test func aPartialThatIsASymbolicLinkIsNeverWrittenThrough() async throws {
        try await withFixture { fixture in
            let (error, _, victim) = try await downloadOverPlanted(fixture) { partial, victim in
                try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: victim)
            }
            try expectUntouched(fixture, victim, error)
            #expect(error.description.contains("symbolic link"))
        }
    }

    @Test func aPartialWithASecondNameIsNotWritten() async throws {
        try await withFixture { fixture in
            let (error, _, victim) = try await downloadOverPlanted(fixture) { partial, victim in
                try FileManager.default.linkItem(at: victim, to: partial)
            }
            try expectUntouched(fixture, victim, error)
            #expect(error.description.contains("hard links"))
        }
    }

    @Test(.enabled(if: isRoot, "only root can give a file to another user"))
    func aPartialOfAnotherUserIsNotWritten() async throws {
        try await withFixture { fixture in
            let (error, partial, _) = try await downloadOverPlanted(fixture) { partial, _ in
                try Self.precious.writeWithoutSync(to: partial)
                #expect(chown(partial.path, 65_534, 65_534) == 0)
            }
            #expect(error.kind == .fileSystem, "\(error)")
            #expect(error.description.contains("belongs to user 65534"), "\(error)")
            #expect(try Data(contentsOf: partial) == Self.precious)
        }
    }

    @Test(.enabled(if: isRoot, "only root can give a directory to another user"))
    func aStoreInAnotherUsersDirectoryIsRefused() async throws {
        try await withFixture(startsManager: false) { fixture in
            let foreign = fixture.file("foreign")
            try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
            #expect(chown(foreign.path, 65_534, 65_534) == 0)
            let link = fixture.file("store-link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: foreign)
            let error = try #require(throws: DownloadError.self) {
                try fixture.makeManager { $0.storage.directory = link }
            }
            #expect(error.kind == .managerUnavailable, "\(error)")
            #expect(error.description.contains("\(link.path) cannot be used"), "\(error)")
            #expect(error.description.contains("belongs to user 65534"), "\(error)")
            #expect(fixture.listing(foreign).isEmpty)
        }
    }

    /// A record replaced by a link to another file: never read through it (what it says would be
    /// obeyed) nor written through it; it is set aside and reported, and that file stays as it was.
    @Test func aRecordThatIsASymbolicLinkIsNeitherReadNorWrittenThrough() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 2102)
            let url = fixture.serve("/r.bin", body)
            let stored = try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("r.bin")), partial: body, length: 100_000)
            let record = fixture.recordFile(stored.id)
            let victim = fixture.file("victim.record")
            try FileManager.default.copyItem(at: record, to: victim)
            let original = try Data(contentsOf: victim)
            try FileManager.default.removeItem(at: record)
            try FileManager.default.createSymbolicLink(at: record, withDestinationURL: victim)

            let manager = try fixture.makeManager()
            #expect(await manager.downloads.isEmpty)
            let issue = try #require(manager.restorationIssues.first)
            #expect(issue.recordURL.lastPathComponent == record.lastPathComponent + ".refused")
            #expect(issue.reason.contains("symbolic link"), "\(issue)")
            #expect(try Data(contentsOf: victim) == original)
            // Its partial file is not touched either.
            #expect(fileLength(fixture.file("r.bin.partial")) == 100_000)
        }
    }
}
