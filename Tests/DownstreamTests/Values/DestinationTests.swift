@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2)))
struct DestinationTests {
    @Test func destinationsAreStandardizedFileURLs() {
        let messy = Destination.file(URL(fileURLWithPath: "/tmp/a/../b/./c.bin"))
        #expect(messy.fileURL?.path == "/tmp/b/c.bin")
        #expect(messy == .file(URL(fileURLWithPath: "/tmp/b/c.bin")))
        #expect(Destination.directory(URL(fileURLWithPath: "/tmp//x/")).directoryURL.path == "/tmp/x")
        let relative = Destination.file(URL(fileURLWithPath: "c.bin"))
        #expect(relative.fileURL?.path == FileManager.default.currentDirectoryPath + "/c.bin")
        #expect(relative.fileURL?.baseURL == nil)
        #expect(messy.directoryPath == "/tmp/b")
        #expect(Destination.directory(URL(fileURLWithPath: "/")).directoryPath == "/")
    }

    /// A path is taken as it is only when it is absolute and has no empty, `.` or `..` part.
    @Test(arguments: [
        ("/", true), ("/tmp/a.bin", true), ("/tmp/dir/", true), ("/tmp/.hidden", true), ("/tmp/...", true),
        ("/tmp/a..b", true), ("", false), ("tmp/a", false), ("//tmp", false), ("/tmp//a", false),
        ("/tmp/./a", false), ("/tmp/../a", false), ("/tmp/.", false), ("/tmp/..", false), ("/.", false),
        ("/tmp/a//", false),
    ])
    func aStandardPathIsAbsoluteWithoutEmptyOrDotParts(path: String, isStandard: Bool) {
        #expect(Destination.isStandardPath(path) == isStandard)
    }

    @Test func anExistingFileIsNotReplacedByDefaultAndNothingIsRequested() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/a", .pattern(count: 1000))
            let destination = fixture.file("a.bin")
            try Data("mine".utf8).writeWithoutSync(to: destination)

            let download = await fixture.manager.download(from: url, to: .file(destination))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .destinationExists)
            #expect(error.path == destination.path)
            #expect(try Data(contentsOf: destination) == Data("mine".utf8))
            #expect(fixture.server.requests().isEmpty)
        }
    }

    @Test func replaceReplacesTheFile() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 5000, seed: 40)
            let url = fixture.serve("/a", body)
            let destination = fixture.file("a.bin")
            try Data("old".utf8).writeWithoutSync(to: destination)
            let file = try await fixture.manager.downloadFile(from: url, to: .file(destination, ifExists: .replace))
            try body.expectMatches(file)
        }
    }

    @Test func aDirectoryGetsAUniqueNameByDefault() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 5000, seed: 41)
            let url = fixture.serve("/docs/notes.txt", body)
            try Data("first".utf8).writeWithoutSync(to: fixture.file("notes.txt"))
            try Data("second".utf8).writeWithoutSync(to: fixture.file("notes (1).txt"))

            let file = try await fixture.manager.downloadFile(from: url, to: .directory(fixture.directory))
            #expect(file.lastPathComponent == "notes (2).txt")
            try body.expectMatches(file)
            #expect(try Data(contentsOf: fixture.file("notes.txt")) == Data("first".utf8))
        }
    }

    @Test func aConflictAtTheEndKeepsTheDataAndResumeFinishesWithoutDownloadingAgain() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 300_000, seed: 42)
            let url = fixture.serve("/late.bin", body) { $0.faults = [.holdAfter(1000)] }
            let download = await fixture.manager.download(
                from: url, to: .directory(fixture.directory, ifExists: .fail))
            await download.waitForBytes(1000)
            // Someone creates the file while the download runs.
            try Data("theirs".utf8).writeWithoutSync(to: fixture.file("late.bin"))
            fixture.server.release("/late.bin")

            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .destinationExists)
            #expect(try Data(contentsOf: fixture.file("late.bin")) == Data("theirs".utf8))
            // The record kept says every byte is there, for a relaunch too.
            let record = try #require(fixture.storedRecord(download.id))
            #expect(record.resume.durableLength == body.count)
            #expect(record.resume.isResumable)

            try FileManager.default.removeItem(at: fixture.file("late.bin"))
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            // The resume only compares the last bytes on disk with the server's.
            let requests = fixture.server.requests("/late.bin")
            #expect(requests.map(\.status) == [206, 206])
            #expect(requests.last?.bodyBytesSent == Int64(fixture.configuration.resumption.overlapLength))
        }
    }

    @Test func aHostileSuggestedNameStaysInsideTheDirectory() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1000, seed: 43)
            let url = fixture.serve("/download", body) {
                $0.contentDisposition = "attachment; filename=\"../../.bashrc\""
            }
            let inbox = fixture.file("inbox")
            let file = try await fixture.manager.downloadFile(from: url, to: .directory(inbox))
            #expect(file == inbox.appendingPathComponent("bashrc"))
            try body.expectMatches(file)
            #expect(fixture.listing() == ["inbox"])
        }
    }

    @Test func createsIntermediateDirectories() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1000, seed: 44)
            let url = fixture.serve("/deep", body)
            let destination = fixture.file("a/b/c/deep.bin")
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .file(destination)))
        }
    }

    @Test func aPartialsDirectoryKeepsTheDestinationCleanUntilTheEnd() async throws {
        let partials = FileManager.default.temporaryDirectory.appendingPathComponent("partials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: partials) }
        try await withFixture({ $0.storage.partialsDirectory = partials }) { fixture in
            let body = Body.pattern(count: 400_000, seed: 45)
            let url = fixture.serve("/p.bin", body) { $0.faults = [.holdAfter(100_000)] }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            await download.waitForBytes(100_000)
            #expect(fixture.listing().isEmpty)
            let names = try FileManager.default.contentsOfDirectory(atPath: partials.path)
            #expect(names.count == 1)
            #expect(names.allSatisfy { $0.hasPrefix("p.bin.") && $0.hasSuffix(".partial") })
            fixture.server.release("/p.bin")
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.listing() == ["p.bin"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: partials.path).isEmpty)
        }
    }

    @Test func aDestinationDirectoryRemovedDuringTheDownloadIsMadeAgain() async throws {
        let partials = FileManager.default.temporaryDirectory.appendingPathComponent("partials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: partials) }
        try await withFixture({ $0.storage.partialsDirectory = partials }) { fixture in
            let body = Body.pattern(count: 200_000, seed: 46)
            let url = fixture.serve("/gone-dir.bin", body) { $0.faults = [.holdAfter(50_000)] }
            let directory = fixture.file("nested/deeper")
            let download = await fixture.manager.download(
                from: url, to: .file(directory.appendingPathComponent("f.bin")))
            await download.waitForBytes(50_000)
            try FileManager.default.removeItem(at: fixture.file("nested"))
            fixture.server.release("/gone-dir.bin")
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.listing(directory) == ["f.bin"])
        }
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "http:///nohost"])
    func aURLThatIsNotHTTPIsAnInvalidRequest(_ address: String) async throws {
        try await withFixture { fixture in
            let url = try #require(URL(string: address))
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(!error.isResumable)
        }
    }

    @Test func aRequestThatIsNotGETIsAnInvalidRequest() async throws {
        try await withFixture { fixture in
            var request = URLRequest(url: fixture.serve("/post", .pattern(count: 10)))
            request.httpMethod = "POST"
            let download = await fixture.manager.download(DownloadRequest(request, to: .directory(fixture.directory)))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(fixture.server.requests().isEmpty)
        }
    }

    @Test func theRequestsHeadersGoWithEveryRequest() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 500_000, seed: 46)
            let url = fixture.serve("/auth", body) { $0.faults = [.resetAfter(100_000)] }
            var request = URLRequest(url: url)
            request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            request.setValue("Downstream-Tests", forHTTPHeaderField: "User-Agent")
            let download = await fixture.manager.download(DownloadRequest(request, to: .file(fixture.file("auth.bin"))))
            await #expect(throws: DownloadError.self) { try await download.fileURL }
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/auth")
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer secret" })
            #expect(requests.allSatisfy { $0.header("User-Agent") == "Downstream-Tests" })
        }
    }

    @Test func thePartialIsPrivateAndTheFileGetsTheUsualMode() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 47)
            let url = fixture.serve("/mode.bin", body) { $0.faults = [.holdAfter(1000)] }
            let destination = fixture.file("mode.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))
            await download.waitForBytes(1000)
            #expect(try permissions(destination.appendingPathExtension("partial")) == 0o600)
            #expect(try permissions(fixture.fileHoldingRecord(download.id)) == 0o600)
            #expect(try permissions(fixture.storeDirectory) == 0o700)
            fixture.server.release("/mode.bin")
            _ = try await download.fileURL
            // What a new file gets under this process's umask (0644 under the usual 022).
            let probe = fixture.file("probe")
            try Data().writeWithoutSync(to: probe)
            #expect(try permissions(destination) == permissions(probe))
        }
    }

    func permissions(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
