@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A coordinated destination (``Destination/isCoordinated``) takes the same path to its file as
/// any other, through a file coordinator on Apple platforms and without one on Linux: the same
/// bytes, a file that appears only complete and replaces the old one in one step, and the option
/// kept across a relaunch.
@Suite(.timeLimit(.minutes(1)))
struct FileCoordinationTests {
    static func coordinated(_ destination: Destination) -> Destination {
        var destination = destination
        destination.isCoordinated = true
        return destination
    }

    @Test func aCoordinatedFileAppearsOnlyCompleteAndReplacesTheOldOneWhole() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 970)
            let url = fixture.serve("/shared.bin", body) { $0.faults = [.holdAfter(500_000)] }
            let file = fixture.file("shared.bin")
            try Data("old version".utf8).writeWithoutSync(to: file)
            let download = await fixture.manager.download(
                from: url, to: Self.coordinated(.file(file, ifExists: .replace)))
            await download.waitForBytes(500_000)
            // Half the bytes are on disk: the destination is still the old version, whole.
            #expect(try Data(contentsOf: file) == Data("old version".utf8))
            fixture.server.release("/shared.bin")
            #expect(try await download.fileURL == file)
            try body.expectMatches(file)
            #expect(fixture.listing() == ["shared.bin"], "no partial file is left beside it")
        }
    }

    @Test func aCoordinatedDirectoryDestinationIsKeptAcrossARelaunch() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 971)
            let url = fixture.serve("/relaunched.bin", body) { $0.faults = [.holdAfter(1_000_000)] }
            let first = try fixture.makeManager()
            let paused = await first.download(from: url, to: Self.coordinated(.directory(fixture.directory)))
            await paused.waitForBytes(1_000_000)
            await paused.pause()
            fixture.server.release("/relaunched.bin")
            await first.invalidate()

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            #expect(download.request.destination.isCoordinated)
            await download.resume()
            let file = try await download.fileURL
            #expect(file == fixture.file("relaunched.bin"))
            try body.expectMatches(file)
        }
    }
}
