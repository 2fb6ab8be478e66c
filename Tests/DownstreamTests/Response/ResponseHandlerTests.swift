@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Response handlers run once the download ends, one after the other in the order they were
/// added, for callers that do not await the download.
@Suite(.timeLimit(.minutes(2)))
struct ResponseHandlerTests {
    @Test func handlersRunInOrderEachAwaitedBeforeTheNext() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 250_000, seed: 710)
            let url = fixture.serve("/handled.bin", body) { $0.contentType = "application/octet-stream" }
            var request = DownloadRequest(url: url, to: .file(fixture.file("handled.bin")))
            request.checks = request.usualChecks
            let download = await fixture.manager.download(request)
            let log = Locked<[String]>([])
            let (done, finished) = AsyncStream<Void>.makeStream()
            download
                .response { response in
                    log.withLock { $0.append("first began") }
                    // Suspends: the second handler must still wait for this one.
                    let length = await Task.detached { fileLength(response.fileURL!) }.value
                    log.withLock { $0.append("first read \(length ?? -1) bytes") }
                }
                .response { response in
                    log.withLock { $0.append("second: \(response.response?.statusCode ?? 0)") }
                    finished.yield()
                }
            var iterator = done.makeAsyncIterator()
            await iterator.next()
            #expect(log.withLock { $0 } == ["first began", "first read 250000 bytes", "second: 206"])
            #expect(download.state == .completed)
        }
    }

    @Test func aHandlerAddedAfterTheEndRunsAtOnceWithThatEnd() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/late.bin", .pattern(count: 1_000, seed: 711))
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("late.bin")))
            let file = try await download.fileURL
            let response = await withCheckedContinuation { continuation in
                download.response { continuation.resume(returning: $0) }
            }
            #expect(response.fileURL == file)
            #expect(response.downloadID == download.id)
            #expect(response.request.url == url)
            #expect(response.error == nil)
        }
    }

    @Test func failuresAndCancellationsReachTheHandlersToo() async throws {
        try await withFixture { fixture in
            let missing = fixture.serve("/missing", .pattern(count: 10)) { $0.faults = [.status(404)] }
            let held = fixture.serve("/held", .pattern(count: 500_000, seed: 712)) { $0.faults = [.holdAfter(1_000)] }
            let failed = await fixture.manager.download(from: missing, to: .file(fixture.file("missing")))
            let failure = await withCheckedContinuation { continuation in
                failed.response { continuation.resume(returning: $0) }
            }
            #expect(failure.error?.statusCode == 404)
            #expect(failure.fileURL == nil)

            let cancelled = await fixture.manager.download(from: held, to: .file(fixture.file("held")))
            let (ends, ended) = AsyncStream<DownloadResponse>.makeStream()
            cancelled.response { ended.yield($0) }
            await cancelled.waitForBytes(1_000)
            await cancelled.cancel()
            var iterator = ends.makeAsyncIterator()
            #expect(await iterator.next()?.error?.kind == .cancelled)
        }
    }
}
