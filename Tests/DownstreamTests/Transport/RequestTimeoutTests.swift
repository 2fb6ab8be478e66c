@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// `requestTimeout` is the longest wait for a byte, on every transport: a request whose server
/// stops sending fails that long after its last byte, saying so (libcurl's low-speed limit, used
/// before, averaged over five seconds and failed about five seconds late).
@Suite(.timeLimit(.minutes(2)))
struct RequestTimeoutTests {
    @Test func aStalledRequestFailsOneTimeoutAfterItsLastByte() async throws {
        try await withFixture({
            $0.network.requestTimeout = .seconds(1)
            $0.retry.maximumRetries = 0
        }) { fixture in
            let url = fixture.serve("/stall", Body.pattern(count: 1_000_000, seed: 70)) {
                $0.faults = [.stallAfter(100_000)]
            }
            let stalled = Locked<ContinuousClock.Instant?>(nil)
            fixture.server.whenBodyBytesReach(100_000) { stalled.withLock { $0 = .now } }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("stall.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            let failed = ContinuousClock.now
            #expect(error.urlErrorCode == .timedOut, "\(error)")
            // The idle watch's words: libcurl's low-speed limit, used before, says "Operation too
            // slow" (and said it about five seconds late: the watch's timing is proven on a manual
            // clock below; a wall-clock bound here would measure the machine's load).
            #expect(error.reason.contains("no byte received for 1 s"), "\(error)")
            // Never before the timeout: the last byte came after the server sent it.
            #expect(failed - (try #require(stalled.withLock { $0 })) >= .seconds(1))
        }
    }

    @Test func theIdleWatchCountsFromTheLastByteAndNotWhilePaused() {
        let start = ContinuousClock.now
        var watch = CurlRequest.IdleWatch(since: start)
        let timeout = Duration.seconds(2)
        func check(_ seconds: Double, connected: Bool = true, apart: Bool = false) -> CurlRequest.IdleCheck {
            watch.check(at: start + .seconds(seconds), timeout: timeout, connected: connected, connectsApart: apart)
        }
        // Connecting: libcurl's connect timeout watches it.
        #expect(check(1.5, connected: false) == .unwatched)
        // Connected, with the wait counted from the start, as URLSession's.
        #expect(check(1.5) == .expiresIn(.seconds(0.5)))
        watch.received()
        #expect(check(1.75) == .expiresIn(.seconds(2)))
        #expect(check(3.5) == .expiresIn(.seconds(0.25)))
        // Paused by its receiver: no wait counts, and it counts again from the end of the pause.
        watch.isPaused = true
        #expect(check(10) == .unwatched)
        watch.isPaused = false
        #expect(check(11.5) == .expiresIn(.seconds(0.5)))
        // A head being read: its long lines come unseen (libcurl's low-speed limit watches it).
        watch.isReadingHead = true
        #expect(check(20) == .unwatched)
        watch.isReadingHead = false
        #expect(check(21) == .expiresIn(.seconds(1)))
        #expect(check(22) == .expired)
    }

    @Test func withAConnectTimeoutOfItsOwnTheWaitStartsOnceConnected() {
        let start = ContinuousClock.now
        var watch = CurlRequest.IdleWatch(since: start)
        let timeout = Duration.seconds(1)
        #expect(
            watch.check(at: start + .seconds(5), timeout: timeout, connected: false, connectsApart: true) == .unwatched)
        #expect(
            watch.check(at: start + .seconds(6), timeout: timeout, connected: true, connectsApart: true)
                == .expiresIn(.seconds(1)))
        #expect(
            watch.check(at: start + .seconds(7), timeout: timeout, connected: true, connectsApart: true) == .expired)
    }

    @Test func secondsAreSaidAsAPersonGivesThem() {
        #expect(Duration.seconds(2).secondsText == "2 s")
        #expect(Duration.milliseconds(500).secondsText == "0.5 s")
        #expect(Duration.seconds(60).secondsText == "60 s")
    }
}
