@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// Timeouts as `--help` writes them: `-T N` ends a request that received no byte for N seconds
/// and says N; `-m N` fails a file not finished N seconds after its first request, keeping its
/// bytes for the same command; a stalled download shows 0 B/s and no time remaining.
@Suite(.timeLimit(.minutes(2)))
struct DLTimeoutTests {
    @Test func aStallEndsTheRequestAfterTheTimeoutAndTheMessageSaysIt() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/t/stall.bin", Body.pattern(count: 1_000_000, seed: 45)) {
                $0.faults = [.stallAfter(100_000)]
            }
            let stalled = Locked<ContinuousClock.Instant?>(nil)
            fixture.server.whenBodyBytesReach(100_000) { stalled.withLock { $0 = .now } }
            let child = try DLChild(
                ["-T", "1", "-t", "1", "--progress-interval", "0", url.absoluteString], in: fixture)
            defer { child.stop() }
            let errors = try #require(child.errors)
            // dl had every byte sent: its progress line says so.
            #expect(await child.output.wait(for: "100 kB/1.00 MB"))
            let failed = await errors.wait(for: "failed stall.bin")
            let gaveUp = ContinuousClock.now
            #expect(failed)
            #expect(await child.exitStatus() == 4)
            #expect(
                await errors.text().contains(
                    "failed stall.bin: timed out: no byte received for 1 s; 100 kB kept: run the same command"
                        + " again to continue"), "\(errors.current)")
            // The last byte came after the server sent it: at least the timeout since. (The words
            // are the idle watch's: libcurl's low-speed limit says "Operation too slow", about 5 s
            // late; the watch's timing is proven on a manual clock in RequestTimeoutTests.)
            #expect(gaveUp - (try #require(stalled.withLock { $0 })) >= .seconds(1))
        }
    }

    @Test func maxTimeFailsTheFileKeepingItsBytesAndARerunContinues() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 46)
            let url = fixture.serve("/t/slow.bin", body) { $0.faults = [.holdAfter(300_000)] }
            let file = fixture.file("slow.bin")
            let first = try await DLChild.run(["-m", "1", url.absoluteString], in: fixture)
            #expect(first.status == 4, "\(first.output)\(first.errors)")
            #expect(
                first.errors.contains(
                    "failed slow.bin: timed out: did not finish within 1 s (-m); 300 kB kept: run the same"
                        + " command again to continue"), "\(first.errors)")
            #expect(!FileManager.default.fileExists(atPath: file.path))

            let second = try await DLChild.run([url.absoluteString], in: fixture)
            #expect(second.status == 0, "\(second.output)\(second.errors)")
            #expect(second.output.contains("resumed slow.bin from 300 kB kept (byte 300000)"), "\(second.output)")
            let rerun = try #require(fixture.server.requests("/t/slow.bin").last)
            // The bytes kept, less the overlap checked against the server's.
            #expect(rerun.header("Range") == "bytes=\(300_000 - 65_536)-")
            try body.expectMatches(file)
        }
    }

    @Test func aStalledBarShowsNoSpeedAndNoTimeRemaining() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/t/quiet.bin", Body.pattern(count: 1_000_000, seed: 47)) {
                $0.faults = [.stallAfter(100_000)]
            }
            let child = try DLChild(
                ["-T", "20", url.absoluteString], in: fixture, output: .terminal(width: 100, height: 30))
            defer { child.stop() }
            let stalled = await child.output.wait { text in
                DLTerminalTests.screen(text).contains {
                    $0.hasPrefix("quiet.bin ") && $0.contains("100 kB/1.00 MB") && $0.contains(" 0 B/s")
                }
            }
            let screen = DLTerminalTests.screen(try #require(stalled))
            let line = try #require(screen.first { $0.hasPrefix("quiet.bin ") })
            #expect(!line.contains("eta"), "\(line)")
        }
    }

    // MARK: - The speed window, on a manual clock

    @Test func theSpeedIsTheBytesOfTheLastWindowAndFallsToZeroInAStall() {
        var window = SpeedWindow()
        window.record(0, at: .zero)
        #expect(window.bytesPerSecond(at: .zero) == 0)
        window.record(100_000, at: .milliseconds(500))
        #expect(window.bytesPerSecond(at: .milliseconds(500)) == 200_000)
        window.record(200_000, at: .seconds(1))
        window.record(300_000, at: .milliseconds(1500))
        window.record(400_000, at: .seconds(2))
        #expect(window.bytesPerSecond(at: .seconds(2)) == 200_000)
        // No byte since 2 s: it falls, and is 0 once a window passed.
        #expect(window.bytesPerSecond(at: .seconds(3)) == 100_000)
        window.record(400_000, at: .seconds(4))
        #expect(window.bytesPerSecond(at: .seconds(4)) == 0)
        // Bytes again: counted from the newest sample at the window's start (2 s), never more
        // than the bytes allow.
        window.record(500_000, at: .milliseconds(4500))
        #expect(window.bytesPerSecond(at: .milliseconds(4500)) == 40_000)
    }

    @Test func fewerBytesThanBeforeStartsTheWindowOver() {
        var window = SpeedWindow()
        window.record(900_000, at: .zero)
        window.record(1_000_000, at: .seconds(1))
        // The download started over from its first byte.
        window.record(0, at: .seconds(2))
        #expect(window.bytesPerSecond(at: .seconds(2)) == 0)
        window.record(50_000, at: .milliseconds(2500))
        #expect(window.bytesPerSecond(at: .milliseconds(2500)) == 100_000)
    }

    @Test func aRunningJobShowsTheWindowsSpeedAndNoTimeRemainingAtZero() {
        let job = Job(url: URL(string: "http://127.0.0.1/f.bin")!, file: URL(fileURLWithPath: "/tmp/f.bin"))
        var status = JobStatus(job: job, number: 1)
        _ = status.apply(.running, at: .zero)
        // The library's last value: a speed it keeps while nothing comes.
        status.update(DownloadProgress(bytesReceived: 0, expectedBytes: 1_000_000, bytesPerSecond: 0))
        status.measureSpeed(at: .zero)
        status.update(DownloadProgress(bytesReceived: 500_000, expectedBytes: 1_000_000, bytesPerSecond: 900_000))
        status.measureSpeed(at: .seconds(1))
        #expect(status.progress?.bytesPerSecond == 500_000)
        #expect(status.progress?.estimatedTimeRemaining == .seconds(1))
        status.measureSpeed(at: .seconds(4))
        #expect(status.progress?.bytesPerSecond == 0)
        #expect(status.progress?.estimatedTimeRemaining == nil)
    }
}
