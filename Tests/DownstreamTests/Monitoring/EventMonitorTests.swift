@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Event monitors see every request, response, resume, retry, progress value and end, in order,
/// and never hold a download up.
@Suite(.timeLimit(.minutes(2)))
struct EventMonitorTests {
    /// Records what it is told as short lines, and says when a download ended.
    final class Recorder: DownloadEventMonitor {
        let lines = Locked<[String]>([])
        let largestProgress = Locked<Int64>(0)
        let ends: AsyncStream<Void>
        private let ended: AsyncStream<Void>.Continuation

        init() {
            (ends, ended) = AsyncStream<Void>.makeStream()
        }

        func download(_ download: Download, willSend request: URLRequest) {
            lines.withLock { $0.append("send \(request.value(forHTTPHeaderField: "Range") ?? "-")") }
        }

        func download(_ download: Download, didReceive response: ServerResponse) {
            lines.withLock { $0.append("response \(response.statusCode)") }
        }

        func download(_ download: Download, didPublish event: DownloadEvent) {
            if let offset = event.resumeOffset {
                lines.withLock { $0.append("resumed \(offset)") }
            } else if event.retryDelay != nil, let error = event.error {
                lines.withLock { $0.append("retry after \(error.statusCode ?? 0)") }
            } else if let url = event.url {
                lines.withLock { $0.append("switched to \(url.path)") }
            } else if event.fileURL != nil || event.state == .failed || event == .cancelled {
                lines.withLock { $0.append(event.fileURL == nil ? "failed" : "completed") }
                ended.yield()
            }
        }

        func download(_ download: Download, didProgress progress: DownloadProgress) {
            largestProgress.withLock { $0 = max($0, progress.bytesReceived) }
        }

        func waitForEnd() async {
            var iterator = ends.makeAsyncIterator()
            await iterator.next()
        }
    }

    @Test func aMonitorSeesRequestsResponsesResumesProgressAndTheEndInOrder() async throws {
        let recorder = Recorder()
        try await withFixture({ $0.eventMonitors = [recorder] }) { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 760)
            let url = fixture.serve("/watched.bin", body) { $0.faults = [.holdAfter(400_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("watched.bin")))
            await download.waitForBytes(400_000)
            await download.pause()
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            await recorder.waitForEnd()
            #expect(
                recorder.lines.withLock { $0 } == [
                    "send bytes=0-67108863", "response 206",
                    "send bytes=\(fixture.rangeStart(continuing: 400_000))-", "response 206",
                    "resumed 400000", "completed",
                ])
            #expect(recorder.largestProgress.withLock { $0 } == body.count)
        }
    }

    @Test func aMonitorSeesRetries() async throws {
        let recorder = Recorder()
        try await withFixture({ configuration in
            configuration.eventMonitors = [recorder]
            var policy = DownloadManager.Configuration.RetryPolicy()
            policy.initialDelay = .milliseconds(1)
            policy.jitter = 0
            configuration.retry = policy
        }) { fixture in
            let url = fixture.serve("/flaky.bin", .pattern(count: 1_000, seed: 761)) { $0.faults = [.status(503)] }
            _ = try await fixture.manager.download(from: url, to: .file(fixture.file("flaky.bin"))).fileURL
            await recorder.waitForEnd()
            #expect(
                recorder.lines.withLock { $0 } == [
                    "send bytes=0-67108863", "response 503", "retry after 503", "send bytes=0-67108863", "response 206",
                    "completed",
                ])
        }
    }

    /// Blocks its queue on its first call until released.
    final class Stuck: DownloadEventMonitor {
        let release = DispatchSemaphore(value: 0)
        let calls = Locked(0)
        let recorder = Recorder()

        func download(_ download: Download, didPublish event: DownloadEvent) {
            let isFirst = calls.withLock { count in
                count += 1
                return count == 1
            }
            if isFirst {
                release.wait()
            }
            recorder.download(download, didPublish: event)
        }
    }

    /// Downloads `body` to completion through a manager whose one monitor is stuck at its first
    /// call, then runs `then`.
    static func withStuckMonitor(
        downloading body: Body, _ then: (Fixture, Stuck) async throws -> Void
    ) async throws {
        let stuck = Stuck()
        try await withFixture({ $0.eventMonitors = [stuck] }) { fixture in
            let url = fixture.serve("/watched.bin", body)
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("watched.bin")))
            // The download completes while its monitor has not got past its first call.
            try body.expectMatches(try await download.fileURL)
            try await then(fixture, stuck)
        }
    }

    @Test func aStuckMonitorHoldsNothingUp() async throws {
        try await Self.withStuckMonitor(downloading: Body.pattern(count: 2_000_000, seed: 762)) { _, stuck in
            #expect(stuck.calls.withLock { $0 } <= 1)
            stuck.release.signal()
            // Then the monitor catches up, in order, with nothing lost but progress.
            await stuck.recorder.waitForEnd()
            #expect(stuck.recorder.lines.withLock { $0 } == ["completed"])
        }
    }

    /// A manager's invalidation returns once its monitors were told everything that happened
    /// before it: a tool that exits then loses no line a monitor prints (dl's `-v` did, under load).
    @Test func invalidatingWaitsForTheMonitorsToCatchUp() async throws {
        try await Self.withStuckMonitor(downloading: Body.pattern(count: 100_000, seed: 763)) { fixture, stuck in
            // The monitor has not got past its first call: the invalidation waits for it.
            let manager: DownloadManager = fixture.manager
            let invalidation = Task {
                await manager.invalidate()
                return stuck.recorder.lines.withLock { $0 }
            }
            stuck.release.signal()
            #expect(await invalidation.value == ["completed"])
        }
    }

    @Test func theConsoleLoggerWritesOneLinePerStep() async throws {
        let lines = Locked<[String]>([])
        let (lastLine, wroteLastLine) = AsyncStream<Void>.makeStream()
        let logger = ConsoleEventLogger(logsProgress: true) { line in
            lines.withLock { $0.append(line) }
            if line.contains("✓") { wroteLastLine.yield() }
        }
        try await withFixture({ $0.eventMonitors = [logger] }) { fixture in
            let body = Body.pattern(count: 10_000, seed: 763)
            let url = fixture.serve("/logged.bin", body)
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("logged.bin")))
            let file = try await download.fileURL
            var iterator = lastLine.makeAsyncIterator()
            await iterator.next()
            let prefix = "[Downstream \(download.id.rawValue.uuidString.prefix(8))] "
            let logged = lines.withLock { $0 }
            #expect(logged.allSatisfy { $0.hasPrefix(prefix) })
            #expect(logged.first == prefix + "→ GET \(url.absoluteString) Range: bytes=0-67108863")
            #expect(
                logged.contains(
                    prefix
                        + "← 206 Content-Length: 10000 Content-Range: bytes 0-9999/10000 Content-Type: application/octet-stream"
                ))
            #expect(logged.contains { $0.hasPrefix(prefix + "10000 of 10000 bytes") })
            #expect(logged.last == prefix + "✓ \(file.path)")
        }
    }

    @Test func theConsoleLoggerWritesNoSecretOfAURLAndEscapesWhatServersSay() async throws {
        let lines = Locked<[String]>([])
        let logger = ConsoleEventLogger { line in lines.withLock { $0.append(line) } }
        try await withFixture { fixture in
            let served = fixture.serve("/logged.bin", .pattern(count: 10, seed: 765))
            let url = try #require(URL(string: served.absoluteString + "?access_token=t0ken&n=1"))
            let download = await fixture.manager.download(
                DownloadRequest(url: url, to: .file(fixture.file("logged.bin"))), startsPaused: true)
            logger.download(download, willSend: URLRequest(url: url))
            logger.download(download, didPublish: .switchedURL(to: url))
            logger.download(
                download,
                didPublish: .failed(.unexpectedResponse("the server said \u{1B}]0;owned\u{7} and \u{202E}")))
            let logged = lines.withLock { $0 }.joined(separator: "\n")
            #expect(!logged.contains("t0ken"))
            #expect(logged.contains("access_token=***&n=1"))
            #expect(!logged.contains("\u{1B}"))
            #expect(logged.contains("the server said \\u{1B}]0;owned\\u{7} and \\u{202E}"), "\(logged)")
        }
    }

    /// Each event is said once, in `didPublish`, and the logger writes one line for each that
    /// matters: waiting for the network is not an end.
    @Test func theConsoleLoggerWritesOneLinePerEvent() async throws {
        let lines = Locked<[String]>([])
        let logger = ConsoleEventLogger { line in lines.withLock { $0.append(line) } }
        try await withFixture { fixture in
            let url = fixture.serve("/told.bin", .pattern(count: 10, seed: 764))
            let download = await fixture.manager.download(
                DownloadRequest(url: url, to: .file(fixture.file("told.bin"))), startsPaused: true)
            let prefix = "[Downstream \(download.id.rawValue.uuidString.prefix(8))] "
            let error = DownloadError.httpStatus(503)
            let file = fixture.file("told.bin")
            for event: DownloadEvent in [
                .queued, .running, .resumed(at: 5), .willRetry(in: .seconds(2), after: error),
                .switchedURL(to: url), .waitingForNetwork(after: .network(.notConnectedToInternet)), .paused,
                .completed(file), .failed(error), .cancelled,
            ] {
                logger.download(download, didPublish: event)
            }
            let logged = lines.withLock { $0 }.map { $0.dropFirst(prefix.count) }
            try #require(logged.count == 7, "\(logged)")
            #expect(logged[0] == "resumed at byte 5")
            #expect(logged[1].hasPrefix("retry in 2.0 s after: "))
            #expect(logged[2] == "now from \(url.absoluteString)")
            #expect(logged[3].hasPrefix("waiting for the network after: "))
            #expect(logged[4] == "✓ \(file.path)")
            #expect(logged[5].hasPrefix("✗ "))
            #expect(logged[6] == "cancelled")
        }
    }
}
