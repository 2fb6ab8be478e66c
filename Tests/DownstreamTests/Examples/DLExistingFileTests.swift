@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A file at the destination already: `dl` fails without touching it unless a flag says what to
/// do (`--no-clobber`, `-N`, `--overwrite`, `--unique`).
@Suite(.timeLimit(.minutes(2)))
struct DLExistingFileTests {
    static let mine = Data("my own file\n".utf8)

    @Test func byDefaultAnExistingFileFailsNamingTheFlagsAndIsNotTouched() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/e/data.bin", Body.pattern(count: 100_000, seed: 20))
            try Self.mine.writeWithoutSync(to: fixture.file("data.bin"))
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 3)
            #expect(
                errors.contains(
                    "failed data.bin: \(fixture.file("data.bin").path) exists: add -c to continue it (if another"
                        + " program left it half done), --no-clobber to keep it, -N to download it again only if it"
                        + " changed, --overwrite to replace it, or --unique"),
                "\(output)\(errors)")
            #expect(try Data(contentsOf: fixture.file("data.bin")) == Self.mine)
            #expect(fixture.server.requests("/e/data.bin").isEmpty)
            #expect(fixture.listing() == ["data.bin"])
            #expect(DLChild.storedDownloads(fixture).isEmpty)
        }
    }

    @Test func noClobberKeepsTheFileWithoutARequest() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/e/data.bin", Body.pattern(count: 100_000, seed: 21))
            try Self.mine.writeWithoutSync(to: fixture.file("data.bin"))
            let (status, output, _) = try await DLChild.run(["-nc", url.absoluteString], in: fixture)
            #expect(status == 0)
            #expect(
                output.contains("kept \(fixture.file("data.bin").path) (already there, --no-clobber)\n"), "\(output)")
            #expect(try Data(contentsOf: fixture.file("data.bin")) == Self.mine)
            #expect(fixture.server.requests("/e/data.bin").isEmpty)
        }
    }

    @Test func timestampingAsksConditionallyAndKeepsAnUnchangedFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 22)
            let url = fixture.serve("/e/data.bin", body)
            let file = fixture.file("data.bin")
            let first = try await DLChild.run(["-N", url.absoluteString], in: fixture)
            #expect(first.status == 0)
            #expect(first.output.contains("saved \(file.path) ("))
            let delivered = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? NSNumber

            // Unchanged on the server: 304, and the file stays the one delivered.
            let second = try await DLChild.run(["--timestamping", url.absoluteString], in: fixture)
            #expect(second.status == 0)
            #expect(second.output.contains("kept \(file.path) (not modified on the server)\n"), "\(second.output)")
            let request = try #require(fixture.server.requests("/e/data.bin").last)
            #expect(request.header("If-None-Match") == "\"\(StableHash.hex("/e/data.bin"))\"")
            #expect(request.status == 304)
            #expect(
                try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? NSNumber == delivered
            )
            try body.expectMatches(file)

            // A new version on the server replaces it.
            let newer = Body.pattern(count: 150_000, seed: 23)
            fixture.serve("/e/data.bin", newer) { $0.etag = "\"v2\"" }
            let third = try await DLChild.run(["-N", url.absoluteString], in: fixture)
            #expect(third.status == 0)
            #expect(third.output.contains("saved \(file.path) ("))
            try newer.expectMatches(file)
        }
    }

    /// `-N` after a plain download (wget's habit): the saved file has the server's
    /// `Last-Modified` as its time, so the conditional request asks about the server's time and a
    /// `304` keeps the file, instead of the whole file coming again.
    @Test func timestampingAfterAPlainDownloadAsksAboutTheServersTime() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 2324)
            let url = fixture.serve("/e/plain.bin", body) { $0.lastModified = "Sun, 01 Nov 2026 10:00:00 GMT" }
            let file = fixture.file("plain.bin")
            let first = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(first.status == 0, "\(first.output)\(first.errors)")
            let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
            #expect(modified == Date(timeIntervalSince1970: 1_793_527_200))

            let second = try await DLChild.run(["-N", url.absoluteString], in: fixture)
            #expect(second.status == 0, "\(second.output)\(second.errors)")
            #expect(second.output.contains("kept \(file.path) (not modified on the server)\n"), "\(second.output)")
            let request = try #require(fixture.server.requests("/e/plain.bin").last)
            #expect(request.header("If-Modified-Since") == "Sun, 01 Nov 2026 10:00:00 GMT")
            #expect(request.status == 304)
            try body.expectMatches(file)
        }
    }

    @Test func overwriteReplacesAndUniqueSavesBeside() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 100_000, seed: 24)
            let url = fixture.serve("/e/data.bin", body)
            try Self.mine.writeWithoutSync(to: fixture.file("data.bin"))
            let unique = try await DLChild.run(["--unique", url.absoluteString], in: fixture)
            #expect(unique.status == 0)
            #expect(unique.output.contains("saved \(fixture.file("data (1).bin").path) ("))
            #expect(try Data(contentsOf: fixture.file("data.bin")) == Self.mine)
            try body.expectMatches(fixture.file("data (1).bin"))

            let overwrite = try await DLChild.run(["--overwrite", url.absoluteString], in: fixture)
            #expect(overwrite.status == 0)
            try body.expectMatches(fixture.file("data.bin"))
        }
    }
}
