@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A group's snapshot, as a Live Activity gets it, follows the group's downloads.
@Suite(.timeLimit(.minutes(2)))
struct GroupSnapshotTests {
    @Test func aGroupsSnapshotFollowsItsDownloadsThroughPauseAndCompletion() async throws {
        try await withFixture { fixture in
            let bodies = (0..<2).map { Body.pattern(count: 100_000, seed: 4400 + UInt64($0)) }
            let requests = bodies.enumerated().map { index, body in
                DownloadRequest(
                    url: fixture.serve("/season/episode\(index)", body) { $0.faults = [.holdAfter(10_000)] },
                    to: .directory(fixture.file("season")))
            }
            let season = await fixture.manager.downloadGroup(requests)
            for download in season.downloads { await download.waitForBytes(10_000) }
            let running = await snapshot(of: season) { $0.bytesReceived == 20_000 && $0.state == .running }
            #expect(running.expectedBytes == 200_000)
            #expect(running.fractionCompleted == 0.1)
            #expect(running.downloadCount == 2)

            await season.pause()
            let paused = await snapshot(of: season) { $0.state == .paused }
            #expect(paused.estimatedCompletion == nil)
            #expect(paused.timerInterval == nil)
            #expect(paused.fractionCompleted == 0.1)

            for index in 0..<2 { fixture.server.release("/season/episode\(index)") }
            await season.resume()
            _ = try await season.fileURLs
            let done = await snapshot(of: season) { $0.state == .completed }
            #expect(done.fractionCompleted == 1)
            #expect(done.completedCount == 2)
            #expect(done.estimatedCompletion == nil)
        }
    }

    /// The group's first snapshot that matches `condition`, waiting for its totals to change.
    func snapshot(of group: DownloadGroup, where condition: (ProgressSnapshot) -> Bool) async -> ProgressSnapshot {
        for await totals in group.progress {
            let snapshot = ProgressSnapshot(totals)
            if condition(snapshot) { return snapshot }
        }
        return ProgressSnapshot(group.currentProgress)
    }
}
