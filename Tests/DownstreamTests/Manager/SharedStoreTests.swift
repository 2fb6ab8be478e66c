@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A store shared by processes (`storage.isSharedByProcesses`): several managers use it at once,
/// each download's place belongs to one of them, and a stored download is taken when its place
/// is asked for. Two managers of this process stand for two processes here (their places are
/// told apart the same way); `DLExampleTests` runs two `dl` processes on one store.
@Suite(.timeLimit(.minutes(1)))
struct SharedStoreTests {
    /// A manager of the fixture's store, shared, with an identifier of its own.
    static func sharedManager(_ fixture: Fixture) throws -> DownloadManager {
        try fixture.makeManager {
            $0.identifier = "shared-\(UUID().uuidString)"
            $0.storage.isSharedByProcesses = true
        }
    }

    @Test func sharingManagersRunSideBySideButNotBesideAnUnsharedOne() async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = try Self.sharedManager(fixture)
            let second = try Self.sharedManager(fixture)
            let body = Body.pattern(count: 50_000, seed: 2601)
            let one = await first.download(from: fixture.serve("/one.bin", body), to: .file(fixture.file("one.bin")))
            let two = await second.download(from: fixture.serve("/two.bin", body), to: .file(fixture.file("two.bin")))
            try body.expectMatches(try await one.fileURL)
            try body.expectMatches(try await two.fileURL)
            let unshared = try #require(throws: DownloadError.self) { try fixture.makeManager() }
            #expect(unshared.kind == .managerUnavailable)
            await first.invalidate()
            await second.invalidate()
            let exclusive = try fixture.makeManager()
            let refused = try #require(throws: DownloadError.self) { try Self.sharedManager(fixture) }
            #expect(refused.kind == .managerUnavailable)
            #expect(refused.reason.contains("does not share it"))
            await exclusive.invalidate()
        }
    }

    @Test func aPlaceAnotherManagerHasFailsAtOnceAndTouchesNothing() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 600_000, seed: 2602)
            let url = fixture.serve("/held.bin", body) { $0.faults = [.holdAfter(200_000)] }
            let destination = fixture.file("held.bin")
            let first = try Self.sharedManager(fixture)
            let second = try Self.sharedManager(fixture)
            let running = await first.download(from: url, to: .file(destination))
            await running.waitForBytes(200_000)
            let recordsBefore = fixture.storedRecords()

            let refused = await second.download(from: url, to: .file(destination))
            let error = try await #require(throws: DownloadError.self) { try await refused.fileURL }
            #expect(error.kind == .destinationInUse)
            #expect(error.path == destination.path)
            #expect(error.reason.contains("another manager of this process"))
            #expect(!error.isResumable)
            // No record of its own, and the other's bytes and record go on.
            #expect(fixture.storedRecords() == recordsBefore)
            #expect(running.state == .running)
            // Cancelling it (as dl does with a download that kept nothing) leaves the other's
            // partial file alone: the other delivers it below (a partial file removed under it
            // cannot be moved into place).
            await refused.cancel()
            await #expect(throws: DownloadError.self) { try await second.unfinishedDownload(to: destination) }

            fixture.server.release("/held.bin")
            try body.expectMatches(try await running.fileURL)
            // Delivered: the place is free for the other manager now.
            try FileManager.default.removeItem(at: destination)
            let again = await second.download(from: url, to: .file(destination))
            try body.expectMatches(try await again.fileURL)
        }
    }

    @Test func aStoredDownloadIsTakenWhenItsPlaceIsAskedFor() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 900_000, seed: 2603)
            let url = fixture.serve("/taken.bin", body) { $0.faults = [.holdAfter(300_000)] }
            let destination = fixture.file("taken.bin")
            let first = try Self.sharedManager(fixture)
            let paused = await first.download(from: url, to: .file(destination))
            await paused.waitForBytes(300_000)
            await paused.pause()
            await first.invalidate()
            fixture.server.release("/taken.bin")

            let second = try Self.sharedManager(fixture)
            // Nothing is taken at launch.
            #expect(await second.downloads.isEmpty)
            let found = try #require(try await second.unfinishedDownload(to: destination))
            #expect(found.id == paused.id)
            #expect(found.currentProgress.bytesReceived == 300_000)
            #expect(await second.downloads.map(\.id) == [paused.id])
            // Asking for it joins it and continues from its bytes.
            let joined = await second.download(from: url, to: .file(destination))
            #expect(joined === found)
            try body.expectMatches(try await joined.fileURL)
            #expect(fixture.server.requests("/taken.bin").last?.rangeStart == fixture.rangeStart(continuing: 300_000))
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func aStoredDownloadOfAPlaceAnotherManagerHasStaysItsOwn() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 600_000, seed: 2604)
            let url = fixture.serve("/kept.bin", body) { $0.faults = [.holdAfter(100_000)] }
            let destination = fixture.file("kept.bin")
            let first = try Self.sharedManager(fixture)
            let running = await first.download(from: url, to: .file(destination))
            await running.waitForBytes(100_000)
            // A manager that starts now finds the record, but may not take it.
            let second = try Self.sharedManager(fixture)
            let error = try await #require(throws: DownloadError.self) {
                try await second.unfinishedDownload(to: destination)
            }
            #expect(error.kind == .destinationInUse)
            #expect(await second.downloads.isEmpty)
            fixture.server.release("/kept.bin")
            try body.expectMatches(try await running.fileURL)
        }
    }
}
