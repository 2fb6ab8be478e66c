@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// iOS gives an updated app a new container path (the Simulator does on every install): records
/// name their files relative to a base found again at launch, so the downloads follow the move.
@Suite(.timeLimit(.minutes(2)))
struct RelocationTests {
    /// The fixture's root, which holds its files and its store: the "container" that moves.
    static func container(_ fixture: Fixture) -> URL {
        fixture.directory.deletingLastPathComponent()
    }

    /// How the manager knows the container: a directory the app registers, or its home.
    enum Base: String, CaseIterable, Sendable {
        case registered, home
    }

    /// A manager of the fixture's store under `root`, with `root` registered as the container (or
    /// as the home directory).
    static func manager(_ fixture: Fixture, under root: URL, as base: Base = .registered) throws -> DownloadManager {
        try fixture.makeManager {
            $0.storage.directory = root.appendingPathComponent("store", isDirectory: true)
            switch base {
            case .registered: $0.storage.relocatableDirectories = ["container": root]
            case .home: $0.storage.homeDirectory = root.path
            }
            SegmentedDownloadTests.segmented(4)(&$0)
            // Room for a download over four connections beside another.
            $0.scheduling.maximumConcurrentDownloads = 8
            $0.scheduling.maximumConcurrentDownloadsPerHost = 8
            $0.restoration.resumesInterruptedDownloads = true
        }
    }

    /// A ranged and a segmented download paused as the app ends, and a file delivered with
    /// `replaceIfChanged`; the container moves; the next launch continues both from their bytes at
    /// the new place, finds the delivered copy current, and writes nothing at the old place.
    @Test(arguments: Base.allCases)
    func aMovedContainerKeepsEveryDownload(_ base: Base) async throws {
        try await withFixture(startsManager: false) { fixture in
            let old = Self.container(fixture)
            let moved = old.deletingLastPathComponent().appendingPathComponent(
                "moved-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: moved) }
            let overlap = Int64(fixture.configuration.resumption.overlapLength)
            let ranged = Body.pattern(count: 1_000_000, seed: 2201)
            let segmented = Body.pattern(count: 2_000_000, seed: 2202)
            let delivered = Body.pattern(count: 100_000, seed: 2203)
            let rangedURL = fixture.serve("/ranged.bin", ranged) { $0.faults = [.holdAfter(300_000)] }
            let segmentedURL = fixture.serve("/segmented.bin", segmented) {
                $0.faults = [.none] + Array(repeating: .holdAfter(50_000 + overlap), count: 4)
            }
            let deliveredURL = fixture.serve("/delivered.bin", delivered)

            // The first launch.
            let first = try Self.manager(fixture, under: old, as: base)
            let files = old.appendingPathComponent("files", isDirectory: true)
            _ = try await first.downloadFile(
                from: deliveredURL,
                to: .file(files.appendingPathComponent("delivered.bin"), ifExists: .replaceIfChanged))
            var request = DownloadRequest(url: rangedURL, to: .file(files.appendingPathComponent("ranged.bin")))
            request.maximumConnections = 1
            let one = await first.download(request)
            let many = await first.download(
                from: segmentedURL, to: .file(files.appendingPathComponent("segmented.bin")))
            await one.waitForBytes(300_000)
            await fixture.server.waitForRequests(5, path: "/segmented.bin")
            await many.waitForBytes(256 * SegmentedDownloadTests.kibibyte + 4 * 50_000 + 3 * overlap)
            // The app pauses them and ends.
            await one.pause()
            await many.pause()
            fixture.server.release("/ranged.bin")
            fixture.server.release("/segmented.bin")
            await first.invalidate()
            let logged = fixture.server.requests().count

            // The container moves; the next launch knows it only by its new place.
            try FileManager.default.moveItem(at: old, to: moved)
            let second = try Self.manager(fixture, under: moved, as: base)
            #expect(second.restorationIssues.isEmpty)
            let restored = await second.downloads
            #expect(restored.count == 2)
            let newFiles = moved.appendingPathComponent("files", isDirectory: true)
            for download in restored {
                #expect(download.state == .paused)
                await download.resume()
                let file = try await download.fileURL
                #expect(file.deletingLastPathComponent().standardizedFileURL == newFiles.standardizedFileURL)
            }
            try ranged.expectMatches(newFiles.appendingPathComponent("ranged.bin"))
            try segmented.expectMatches(newFiles.appendingPathComponent("segmented.bin"))
            let copy = try await second.downloadFile(
                from: deliveredURL,
                to: .file(newFiles.appendingPathComponent("delivered.bin"), ifExists: .replaceIfChanged))
            try delivered.expectMatches(copy)

            // Each continued from its bytes at the new place (after the overlap before them); the
            // delivered copy was found current; nothing was written at the old place.
            let launched = fixture.server.requests().dropFirst(logged)
            #expect(
                launched.filter { $0.path == "/ranged.bin" }.map(\.rangeStart) == [
                    fixture.rangeStart(continuing: 300_000)
                ])
            #expect(launched.filter { $0.path == "/segmented.bin" }.allSatisfy { ($0.rangeStart ?? 0) > 0 })
            #expect(launched.filter { $0.path == "/delivered.bin" }.map(\.status) == [304])
            #expect(!FileManager.default.fileExists(atPath: old.path))
            #expect(fixture.listing(newFiles) == ["delivered.bin", "ranged.bin", "segmented.bin"])
            await second.invalidate()
        }
    }

    /// A record whose container is not named at a launch stays in the store, reported, and is
    /// restored by a launch that names it again.
    @Test func aRecordOfAnUnnamedDirectoryWaitsForALaunchThatNamesIt() async throws {
        try await withFixture(startsManager: false) { fixture in
            let root = Self.container(fixture)
            let body = Body.pattern(count: 800_000, seed: 2204)
            let url = fixture.serve("/waits.bin", body) { $0.faults = [.holdAfter(200_000)] }
            let first = try Self.manager(fixture, under: root)
            let download = await first.download(from: url, to: .directory(fixture.directory))
            await download.waitForBytes(200_000)
            await download.pause()
            fixture.server.release("/waits.bin")
            await first.invalidate()

            let unnamed = try fixture.makeManager()
            let issues = unnamed.restorationIssues
            #expect(await unnamed.downloads.isEmpty)
            #expect(issues.count == 1)
            #expect(issues.first?.reason.contains("relocatableDirectories") == true)
            #expect(issues.first?.recordURL.pathExtension == DownloadStore.recordExtension)
            await unnamed.invalidate()

            let named = try Self.manager(fixture, under: root)
            let restored = try #require(await named.downloads.first)
            await restored.resume()
            try body.expectMatches(try await restored.fileURL)
            // The launch that named it continued from the bytes on disk (the rest split in two
            // segments, the first continuing those bytes after its overlap).
            let launched = fixture.server.requests("/waits.bin").dropFirst()
            let resumePoint = fixture.rangeStart(continuing: 200_000)
            #expect(launched.contains { $0.rangeStart == resumePoint })
            #expect(launched.allSatisfy { ($0.rangeStart ?? 0) >= resumePoint })
            await named.invalidate()
        }
    }
}
