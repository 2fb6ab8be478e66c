@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `-O -` (and curl's `-o -`): the file goes to standard output, once complete and checked, and
/// the reports to standard error. It is downloaded into dl's store first: a pipe cannot take
/// bytes back, and so the same command continues it after Ctrl-C.
@Suite(.timeLimit(.minutes(1)))
struct DLStandardOutputTests {
    static let text = Data((1...20_000).map { "line \($0)\n" }.joined().utf8)

    @Test(arguments: [["-O", "-"], ["-o", "-"]])
    func theFileGoesToStandardOutputAndTheReportsToStandardError(_ flags: [String]) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/out/notes.txt", .data(Self.text))
            let (status, output, errors) = try await DLChild.run(flags + [url.absoluteString], in: fixture)
            #expect(status == 0, "\(errors)")
            #expect(Data(output.utf8) == Self.text)
            #expect(errors.contains("saved /dev/stdout ("), "\(errors)")
            // Nothing is left behind: not in the current folder, not in the store.
            #expect(fixture.listing().isEmpty)
            #expect(fixture.listing(DLChild.store(fixture).appendingPathComponent("stdout")).isEmpty)
        }
    }

    @Test func ctrlCThenTheSameCommandContinuesAndWritesTheWholeFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let count = Self.text.count
            let url = fixture.serve("/out/long.txt", .data(Self.text)) { $0.faults = [.holdAfter(Int64(count / 3))] }
            let first = try DLChild(["--progress-interval", "0", "-O", "-", url.absoluteString], in: fixture)
            defer { first.stop() }
            #expect(await first.errors?.wait(for: "long.txt  33%") == true)
            first.interrupt()
            #expect(await first.exitStatus() == 130)
            #expect(await first.output.text().isEmpty, "nothing is written out before it is complete")
            fixture.server.release("/out/long.txt")

            let (status, output, errors) = try await DLChild.run(["-O", "-", url.absoluteString], in: fixture)
            #expect(status == 0, "\(errors)")
            #expect(Data(output.utf8) == Self.text)
            #expect(errors.contains("resumed long.txt from"), "\(errors)")
            let starts = fixture.server.requests("/out/long.txt").map { $0.rangeStart ?? 0 }
            #expect(starts.count == 2 && starts[1] > 0, "\(starts)")
        }
    }

    @Test func severalURLsCannotShareStandardOutput() async throws {
        try await withFixture(startsManager: false) { fixture in
            let (status, _, errors) = try await DLChild.run(
                ["-O", "-", fixture.server.url("/a").absoluteString, fixture.server.url("/b").absoluteString],
                in: fixture)
            #expect(status == 2)
            #expect(errors.contains("-O (--output-document) takes one URL"), "\(errors)")
        }
    }
}
