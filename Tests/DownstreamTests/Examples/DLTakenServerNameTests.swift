import DownstreamTesting
import Foundation
import Testing

/// `--content-disposition` when the name the server gives is taken by a file in the folder: dl
/// says so once the response's head came, names the ways out, downloads nothing for nothing and
/// leaves no partial file or record behind; `--unique` then saves it beside the file.
@Suite(.timeLimit(.minutes(2)))
struct DLTakenServerNameTests {
    @Test(arguments: HostileServerDLTests.transports)
    func aTakenServerNameFailsBeforeTheBodyAndNamesTheWaysOut(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 4501)
            let url = fixture.serve("/cd/download", body) {
                $0.contentDisposition = "attachment; filename=\"taken.bin\""
            }
            let mine = Data("the user's own file".utf8)
            try mine.writeWithoutSync(to: fixture.file("taken.bin"))
            let environment = ["DOWNSTREAM_TRANSPORT": transport]

            let run = try await DLChild.run(
                ["--content-disposition", url.absoluteString], in: fixture, environment: environment)
            #expect(run.status == 3, "\(run.output)\(run.errors)")
            #expect(
                run.errors
                    == "failed download: the server names the file taken.bin, and \(fixture.directory.path) has a file"
                    + " by that name: add --unique to save the new one beside it, --overwrite to replace it, or -nc"
                    + " to keep it\n")
            // Nothing left behind: no partial file in the folder, no record in dl's store.
            #expect(fixture.listing() == ["taken.bin"])
            #expect(DLChild.storedDownloads(fixture).isEmpty)
            #expect(try Data(contentsOf: fixture.file("taken.bin")) == mine)

            // What the message says: --unique saves it beside the user's file.
            let unique = try await DLChild.run(
                ["--content-disposition", "--unique", url.absoluteString], in: fixture, environment: environment)
            #expect(unique.status == 0, "\(unique.output)\(unique.errors)")
            try body.expectMatches(fixture.file("taken (1).bin"))
            #expect(try Data(contentsOf: fixture.file("taken.bin")) == mine)
            #expect(fixture.listing() == ["taken (1).bin", "taken.bin"])
            #expect(DLChild.storedDownloads(fixture).isEmpty)
        }
    }
}
