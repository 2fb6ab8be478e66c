@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Bandwidth limits through a manager, on a manual clock: a download gets no more than its limit
/// allows in the clock's time, downloads share the manager's limit, and limits change while they
/// run. No test sleeps: the clock moves only when the limiter waits on it.
@Suite(.timeLimit(.minutes(2)))
struct BandwidthLimitTests {
    /// Moves `clock` on by whatever waits on it, as it starts waiting (one that starts after its
    /// deadline passed needs nothing): on the clock's own threads, never a task of the pool
    /// (``ManualClock``).
    struct Advancer: Sendable {
        private let clock: ManualClock

        init(_ clock: ManualClock) {
            self.clock = clock
            clock.advanceOnItsOwn()
        }

        /// The clock's time so far.
        var time: Duration { clock.now.offset }

        func stop() { clock.advanceOnItsOwn(false) }
    }

    static func limited(_ clock: ManualClock, overall: Int?) -> (inout DownloadManager.Configuration) -> Void {
        { configuration in
            configuration.run(on: clock)
            configuration.network.maximumBytesPerSecond = overall
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test func aLimitedDownloadTakesTheTimeItsLimitSaysOnTheClock() async throws {
        let clock = ManualClock()
        try await withFixture(Self.limited(clock, overall: 200_000)) { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 810)
            let url = fixture.serve("/limited.bin", body)
            let advancer = Advancer(clock)
            defer { advancer.stop() }
            let limiter = try #require(fixture.manager.bandwidthLimiter)
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            try body.expectMatches(try await download.fileURL)
            // The burst (a tenth of a second's worth) goes at once, the rest at 200,000 bytes/s;
            // each wait pays the debt exactly, and the last chunk may leave the bucket in debt
            // with no wait after it. So the clock shows the rest's time, less at most that chunk.
            let rest = Double(1_000_000 - 20_000) / 200_000
            let lastChunk = Double(limiter.largestChunkAdmitted(for: download.id)) / 200_000
            let time = Self.seconds(advancer.time)
            #expect(time >= rest - lastChunk - 0.001, "\(time) s on the clock")
            #expect(time <= rest + 0.001, "\(time) s on the clock")
            #expect(fixture.manager.bandwidthLimit == 200_000)
        }
    }

    @Test func downloadsSharingTheManagersLimitGetNoMoreTogether() async throws {
        let clock = ManualClock()
        try await withFixture(Self.limited(clock, overall: 100_000)) { fixture in
            let body = Body.pattern(count: 400_000, seed: 811)
            let urls = [fixture.serve("/a.bin", body), fixture.serve("/b.bin", body)]
            let limiter = try #require(fixture.manager.bandwidthLimiter)
            let advancer = Advancer(clock)
            defer { advancer.stop() }
            var downloads: [Download] = []
            for url in urls {
                downloads.append(await fixture.manager.download(from: url, to: .directory(fixture.directory)))
            }
            for download in downloads {
                try body.expectMatches(try await download.fileURL)
                #expect(limiter.bytesAdmitted(for: download.id) == 400_000)
            }
            // 800,000 bytes at 100,000 bytes/s together, less the burst and a chunk. (Turns are
            // fair between downloads that both wait: BandwidthLimiterTests; here one may start
            // receiving later than the other on the real clock.)
            let time = Self.seconds(advancer.time)
            #expect(time >= Double(800_000 - 2 * 16_384) / 100_000, "\(time) s on the clock")
        }
    }

    @Test func aLimitChangedWhileTheDownloadWaitsTakesEffect() async throws {
        let clock = ManualClock()
        try await withFixture(Self.limited(clock, overall: nil)) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 812)
            let url = fixture.serve("/changing.bin", body)
            var request = DownloadRequest(url: url, to: .directory(fixture.directory))
            request.maximumBytesPerSecond = 50_000
            let firstWait = Locked<Duration?>(nil)
            let downloadBox = Locked<Download?>(nil)
            // At 50,000 bytes/s the file would take 40 s on the clock; when it waits for the first
            // time, the limit goes: the waiting chunk goes at once and the rest without waiting.
            // (Lifted on the clock's queue, not by the test's task: on Linux the wait holds every
            // URLSession of the process.)
            clock.whenWaiting { wait in
                let isFirst = firstWait.withLock { first in
                    defer { first = first ?? wait }
                    return first == nil
                }
                if isFirst {
                    downloadBox.withLock { $0 }?.setBandwidthLimit(nil)
                }
            }
            let download = await fixture.manager.download(request, startsPaused: true)
            downloadBox.withLock { $0 = download }
            #expect(download.bandwidthLimit == 50_000)
            #expect(fixture.storedRecord(download.id)?.request.maximumBytesPerSecond == 50_000)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let first = try #require(firstWait.withLock { $0 })
            #expect(first <= .milliseconds(400), "a chunk's wait, not the whole file's")
            #expect(download.bandwidthLimit == nil)
        }
    }
}
