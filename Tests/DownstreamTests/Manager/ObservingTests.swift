@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a list of downloads needs: the manager's totals and events, groups, speed and time left.
@Suite(.timeLimit(.minutes(2)))
struct ObservingTests {
    @Test func theManagersTotalsFollowItsDownloads() async throws {
        try await withFixture { fixture in
            let first = Body.pattern(count: 300_000, seed: 800)
            let second = Body.pattern(count: 200_000, seed: 801)
            let firstURL = fixture.serve("/total1", first) { $0.faults = [.holdAfter(100_000)] }
            let secondURL = fixture.serve("/total2", second) { $0.faults = [.holdAfter(50_000)] }
            let a = await fixture.manager.download(from: firstURL, to: .directory(fixture.directory))
            let b = await fixture.manager.download(from: secondURL, to: .directory(fixture.directory))
            await a.waitForBytes(100_000)
            await b.waitForBytes(50_000)

            var totals = fixture.manager.progress.makeAsyncIterator()
            var current = await totals.next()
            while current?.bytesReceived != 150_000 { current = await totals.next() }
            #expect(current?.downloadCount == 2)
            #expect(current?.expectedBytes == 500_000)
            #expect(current?.fractionCompleted == 0.3)
            #expect(current?.count(.running) == 2)

            fixture.server.release("/total1")
            fixture.server.release("/total2")
            _ = try await a.fileURL
            _ = try await b.fileURL
            while current?.count(.completed) != 2 || current?.bytesReceived != 500_000 { current = await totals.next() }
            #expect(current?.fractionCompleted == 1)
            #expect(fixture.manager.currentProgress.count(.completed) == 2)
        }
    }

    @Test func theManagersEventsCarryEveryDownloadsEvents() async throws {
        try await withFixture { fixture in
            let events = fixture.manager.events
            let urls = (0..<3).map { fixture.serve("/event\($0)", .pattern(count: 1000, seed: UInt64($0))) }
            var downloads: [Download] = []
            for url in urls {
                downloads.append(await fixture.manager.download(from: url, to: .directory(fixture.directory)))
            }
            var completed: Set<Download.ID> = []
            for await event in events where event.event.fileURL != nil {
                completed.insert(event.download.id)
                if completed.count == 3 { break }
            }
            #expect(completed == Set(downloads.map(\.id)))
        }
    }

    @Test func aGroupHasOneProgressOneWaitAndOneCancel() async throws {
        try await withFixture { fixture in
            let bodies = (0..<3).map { Body.pattern(count: 100_000, seed: 810 + UInt64($0)) }
            let requests = bodies.enumerated().map { index, body in
                DownloadRequest(
                    url: fixture.serve("/album/track\(index).mp3", body), to: .directory(fixture.file("album")))
            }
            let album = await fixture.manager.downloadGroup(requests)
            let files = try await album.fileURLs
            #expect(files.map(\.lastPathComponent) == ["track0.mp3", "track1.mp3", "track2.mp3"])
            for (file, body) in zip(files, bodies) { try body.expectMatches(file) }
            #expect(album.currentProgress.count(.completed) == 3)
            #expect(album.currentProgress.bytesReceived == 300_000)
            #expect(try await album.results.map { try $0.get() } == files)

            // Another group: cancelled as one.
            let held = (0..<2).map { index in
                DownloadRequest(
                    url: fixture.serve("/held\(index)", .pattern(count: 100_000)) { $0.faults = [.holdAfter(1000)] },
                    to: .directory(fixture.file("held")))
            }
            let group = await fixture.manager.downloadGroup(held)
            for download in group.downloads { await download.waitForBytes(1000) }
            let waiting = Task { try await group.fileURLs }
            await group.cancel()
            #expect(group.downloads.allSatisfy { $0.state == .cancelled })
            await #expect(throws: DownloadError.cancelled) { try await waiting.value }
            #expect(await group.results.allSatisfy { (try? $0.get()) == nil })
        }
    }

    @Test func duplicatesJoinByDefaultOrStartSeparately() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 200_000, seed: 820)
            let url = fixture.serve("/twice.bin", body) { $0.faults = [.holdAfter(1000)] }
            let first = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            #expect(await fixture.manager.download(from: url, to: .directory(fixture.directory)) === first)
            var request = DownloadRequest(url: url, to: .directory(fixture.directory))
            request.duplicates = .startSeparately
            let second = await fixture.manager.download(request)
            #expect(second !== first)
            fixture.server.release("/twice.bin")
            let files = [try await first.fileURL, try await second.fileURL].map(\.lastPathComponent).sorted()
            #expect(files == ["twice (1).bin", "twice.bin"])
            #expect(fixture.listing() == ["twice (1).bin", "twice.bin"])
        }
    }

    /// A link steady at 4.19 MB/s, whose bytes come in bursts of uneven size at uneven times,
    /// after a first burst from the buffers between the server and us (the case dl's users saw
    /// reported at 9.15 MB/s, then 7 % high): the speed is within 2 % of the true rate once a
    /// window has passed, never more than the bytes received allow, and the time remaining only
    /// falls, on a manual clock.
    @Test func speedIsTheRateOfTheLastWindowAndTimeRemainingOnlyFalls() {
        let rate = 4_190_000.0
        let total: Int64 = 80_000_000
        var speed = SpeedEstimator()
        speed.restart(at: 0, seconds: 0)
        // The first burst: 256 KiB at once, counted for what it is; a window later it is out.
        speed.sample(262_144, at: 0.01)
        #expect(abs(speed.bytesPerSecond - 262_144 / 0.01) < 1)
        var generator = SplitMix(seed: 2330)
        var time = 0.01
        var received: Int64 = 262_144
        var lastRemaining: Duration?
        while time < 12 {
            // Samples 50 to 250 ms apart; the link delivers exactly `rate` on average.
            time += 0.05 + Double(generator.next() % 200) / 1000
            received = 262_144 + Int64(rate * (time - 0.01)) - Int64(generator.next() % 16_384)
            speed.sample(received, at: time)
            #expect(speed.bytesPerSecond * min(time, speed.window + 0.25) <= Double(received) + 1)
            if time > speed.window + 0.3 {
                #expect(abs(speed.bytesPerSecond - rate) / rate < 0.02, "at \(time) s: \(speed.bytesPerSecond)")
                let remaining = speed.timeRemaining(received: received, expected: total)
                if let lastRemaining, let remaining {
                    #expect(remaining < lastRemaining + .milliseconds(20), "at \(time) s the time remaining rose")
                }
                lastRemaining = remaining
            }
        }
        #expect(speed.timeRemaining(received: 0, expected: nil) == nil)
        speed.stop()
        #expect(speed.bytesPerSecond == 0)
        #expect(speed.timeRemaining(received: 0, expected: 1) == nil)
    }

    /// A new speed is followed within a window; a new request keeps the speed until it is measured.
    @Test func aNewSpeedIsFollowedWithinAWindow() {
        var speed = SpeedEstimator()
        speed.restart(at: 0, seconds: 0)
        var bytes: Int64 = 0
        var time = 0.0
        for _ in 0..<40 {
            time += 0.1
            bytes += 100_000
            speed.sample(bytes, at: time)
        }
        #expect(abs(speed.bytesPerSecond - 1_000_000) < 1)
        for _ in 0..<21 {
            time += 0.1
            bytes += 20_000
            speed.sample(bytes, at: time)
        }
        #expect(abs(speed.bytesPerSecond - 200_000) < 1)
        speed.restart(at: bytes, seconds: time + 5)
        #expect(abs(speed.bytesPerSecond - 200_000) < 1, "kept until the new request's first sample")
        speed.sample(bytes + 50_000, at: time + 5.1)
        #expect(abs(speed.bytesPerSecond - 500_000) < 1, "the new request's own bytes, not the pause between")
    }

    /// A small deterministic generator for the tests' jitter.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func aDownloadReportsItsTimeRemaining() async throws {
        let moving = FirstProgress { $0.bytesPerSecond > 0 && $0.bytesReceived < 2_000_000 }
        try await withFixture({
            $0.progress.interval = .milliseconds(50)
            $0.eventMonitors = [moving]
        }) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 821)
            // A slow server: the file moves for two seconds; the monitor sees every value.
            let url = fixture.serve("/eta", body) { $0.bytesPerSecond = 1_000_000 }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let progress = try #require(await moving.value())
            let timeLeft = try #require(progress.estimatedTimeRemaining)
            #expect(timeLeft > .zero)
            _ = try await download.fileURL
            #expect(download.currentProgress.estimatedTimeRemaining == nil)
        }
    }
}
