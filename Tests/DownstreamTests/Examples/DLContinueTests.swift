@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `dl -c` (wget's `--continue`, curl's `-C -`) on a file another program left: continued from
/// its end once the server's last 64 KiB before it matched, else left exactly as it was.
@Suite(.timeLimit(.minutes(2)))
struct DLContinueTests {
    static let length: Int64 = 2_000_000
    static let kept: Int64 = 700_000

    @Test(arguments: [["-c"], ["-C", "-"]])
    func continuesTheFileAnotherToolLeft(_ flags: [String]) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: Self.length, seed: 4_510)
            let url = fixture.serve("/c/data.bin", body)
            try PlantedFile.plant(body.bytes(0..<Self.kept), at: fixture.file("data.bin"))

            let (status, output, errors) = try await DLChild.run(flags + [url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("data.bin"))
            #expect(fixture.server.requests("/c/data.bin").map(\.rangeStart) == [Self.kept - (64 << 10)])
            #expect(output.contains("(byte \(Self.kept))"), "\(output)")
            #expect(output.contains("saved \(fixture.file("data.bin").path) ("), "\(output)")
            #expect(fixture.listing() == ["data.bin"])
            #expect(DLChild.storedDownloads(fixture).isEmpty)
        }
    }

    @Test func aFileWhoseEndIsNotTheServersIsLeftAsItWas() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: Self.length, seed: 4_511)
            let url = fixture.serve("/c/data.bin", body)
            var mine = body.bytes(0..<Self.kept)
            mine[Int(Self.kept) - 10] = ~mine[Int(Self.kept) - 10]
            try PlantedFile.plant(mine, at: fixture.file("data.bin"))

            let (status, output, errors) = try await DLChild.run(["-c", url.absoluteString], in: fixture)
            #expect(status == 3)
            #expect(
                errors.contains(
                    "failed data.bin: \(fixture.file("data.bin").path) was not continued: it is not the start of the"
                        + " server's file: its last 65536 bytes are not the server's; it was left as it was: add"
                        + " --overwrite to download the file again over it, or --unique to save it beside"),
                "\(output)\(errors)")
            try PlantedFile.expectUntouched(fixture.file("data.bin"), holds: mine)
            #expect(fixture.listing() == ["data.bin"])
            #expect(DLChild.storedDownloads(fixture).isEmpty)
        }
    }

    @Test func aServerWithoutRangesLeavesTheFileAsItWas() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: Self.length, seed: 4_512)
            let url = fixture.serve("/c/data.bin", body) { $0.supportsRanges = false }
            let mine = body.bytes(0..<Self.kept)
            try PlantedFile.plant(mine, at: fixture.file("data.bin"))

            let (status, output, errors) = try await DLChild.run(["-c", url.absoluteString], in: fixture)
            #expect(status == 3)
            #expect(errors.contains("was not continued: the server sends no ranges"), "\(output)\(errors)")
            try PlantedFile.expectUntouched(fixture.file("data.bin"), holds: mine)
            #expect(fixture.listing() == ["data.bin"])
        }
    }

    /// Killed while the server's bytes were being compared, dl has not touched the file: it is
    /// where it was, and the same command continues it.
    @Test func killedDuringTheComparisonTheFileStaysAndTheSameCommandContinues() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: Self.length, seed: 4_513)
            let url = fixture.serve("/c/data.bin", body) { $0.faults = [.holdAfter(1_000)] }
            let mine = body.bytes(0..<Self.kept)
            try PlantedFile.plant(mine, at: fixture.file("data.bin"))

            let first = try DLChild(["-c", url.absoluteString], in: fixture)
            defer { first.stop() }
            #expect(await fixture.server.waitForBodyBytes(1_000))
            first.stop()
            #expect(await first.exitStatus() == SIGKILL)
            try PlantedFile.expectUntouched(fixture.file("data.bin"), holds: mine)

            let (status, output, errors) = try await DLChild.run(["-c", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("data.bin"))
            let starts = fixture.server.requests("/c/data.bin").map(\.rangeStart)
            #expect(starts == [Self.kept - (64 << 10), Self.kept - (64 << 10)])
        }
    }

    /// A file as long as the server's, ending with its bytes, is the file: kept as it is.
    @Test func aCompleteFileIsKeptAsItIs() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: Self.length, seed: 4_514)
            let url = fixture.serve("/c/data.bin", body)
            let whole = body.bytes(0..<Self.length)
            try PlantedFile.plant(whole, at: fixture.file("data.bin"))

            let (status, output, errors) = try await DLChild.run(["-c", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            #expect(
                output.contains(
                    "kept \(fixture.file("data.bin").path) (already complete: as long as the server's file, and its"
                        + " last 64 KiB are the server's)"),
                "\(output)")
            try PlantedFile.expectUntouched(fixture.file("data.bin"), holds: whole)
        }
    }
}
