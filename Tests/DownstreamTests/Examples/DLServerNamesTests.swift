import DownstreamTesting
import Foundation
import Testing

/// `--content-disposition` (wget's; curl's `-J`): the server's name for the file, made safe by
/// the library's rules, inside the output folder.
@Suite(.timeLimit(.minutes(1)))
struct DLServerNamesTests {
    @Test func theServersNameIsUsedSafelyAndARerunKeepsTheFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 20_000, seed: 2311)
            let url = fixture.serve("/cd/download", body) {
                $0.contentDisposition = "attachment; filename=\"../../report 2026.pdf\""
            }
            let link = URL(string: url.absoluteString + "?id=7")!
            let (status, output, errors) = try await DLChild.run(
                ["--content-disposition", link.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            let saved = fixture.file("report 2026.pdf")
            try body.expectMatches(saved)
            #expect(output.contains("saved \(saved.path) ("), "\(output)")
            #expect(fixture.listing() == ["report 2026.pdf"])

            // The same command again: the file is the one it saved, kept without a download.
            let again = try await DLChild.run(["--content-disposition", link.absoluteString], in: fixture)
            #expect(again.status == 0, "\(again.output)\(again.errors)")
            #expect(again.output.contains("kept \(saved.path) (saved by an earlier run)"), "\(again.output)")
            #expect(fixture.server.requests("/cd/download").count == 1)
            #expect(fixture.listing() == ["report 2026.pdf"])
        }
    }

    /// A URL's name is made safe as the library makes any name it derives: cut to 255 bytes with
    /// its extension kept (300 bytes failed with "File name too long"), without format characters.
    @Test func aLongOrMisleadingURLNameIsSavedUnderASafeOne() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 5_000, seed: 2313)
            let url = fixture.serve("/" + String(repeating: "n", count: 300) + "%E2%80%AE.iso", body)
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file(String(repeating: "n", count: 251) + ".iso"))
        }
    }

    @Test func withoutTheFlagTheURLNamesTheFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 1_000, seed: 2312)
            let url = fixture.serve("/cd/data.bin", body) {
                $0.contentDisposition = "attachment; filename=\"other.bin\""
            }
            let (status, output, errors) = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            #expect(fixture.listing() == ["data.bin"])
        }
    }
}
