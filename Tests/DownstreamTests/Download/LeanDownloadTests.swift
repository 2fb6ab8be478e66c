@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A download nothing happened to holds little (an app may keep 100,000 queued): its machine,
/// sources, credentials and recovery memory are made when it starts or is controlled, not when
/// it is queued, restored or read as a list reads it; and it behaves the same once they are made.
@Suite(.timeLimit(.minutes(2)))
struct LeanDownloadTests {
    @Test func aQueuedDownloadHoldsNoActivityUntilItStarts() async throws {
        try await withFixture({ $0.scheduling.maximumConcurrentDownloads = 0 }) { fixture in
            let bodies = (0..<3).map { Body.pattern(count: 10_000, seed: 900 + UInt64($0)) }
            var downloads: [Download] = []
            for (index, body) in bodies.enumerated() {
                let url = fixture.serve("/lean\(index).bin", body)
                downloads.append(await fixture.manager.download(from: url, to: .directory(fixture.directory)))
            }
            for (index, download) in downloads.enumerated() {
                // What a list reads.
                #expect(download.state == .queued)
                #expect(download.url == fixture.server.url("/lean\(index).bin"))
                #expect(download.currentProgress.bytesReceived == 0)
                #expect(download.priority == .normal)
                #expect(await !download.hasActivity)
            }
            await fixture.manager.setLimits(maximumConcurrentDownloads: 1)
            for (download, body) in zip(downloads, bodies) {
                try body.expectMatches(try await download.fileURL)
                #expect(await download.hasActivity)
            }
        }
    }

    @Test func aRestoredDownloadHoldsNoActivityUntilItIsResumed() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 30_000, seed: 910)
            let url = fixture.serve("/restored.bin", body)
            let destination = fixture.file("restored.bin")
            do {
                let manager = try fixture.makeManager()
                let download = await manager.download(
                    DownloadRequest(url: url, to: .file(destination)), startsPaused: true)
                #expect(await !download.hasActivity)
                await manager.invalidate()
            }
            let manager = try fixture.makeManager()
            let restored = await manager.downloads
            try #require(restored.count == 1)
            let download = restored[0]
            #expect(download.state == .paused)
            #expect(download.url == url)
            await download.setPriority(.high)
            #expect(await !download.hasActivity)
            await download.resume()
            #expect(try await download.fileURL == destination)
            try body.expectMatches(destination)
            #expect(await download.hasActivity)
            await manager.invalidate()
        }
    }
}
