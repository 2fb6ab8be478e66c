@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Transient failures are retried by themselves, from the bytes on disk, on an injected clock.
@Suite(.timeLimit(.minutes(2)))
struct RetryTests {
    static func retrying(with clock: ManualClock) -> (inout DownloadManager.Configuration) -> Void {
        { configuration in
            var policy = DownloadManager.Configuration.RetryPolicy()
            policy.jitter = 0
            configuration.retry = policy
            configuration.run(on: clock)
        }
    }

    @Test func aConnectionDroppedTwiceIsRetriedFromTheBytesOnDisk() async throws {
        let clock = ManualClock()
        try await withFixture(Self.retrying(with: clock)) { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 700)
            let url = fixture.serve("/flaky", body) { $0.faults = [.resetAfter(200_000), .closeAfter(300_000)] }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            var sleeps = clock.sleeps.makeAsyncIterator()

            // First failure: retry in 1 s; second: in 2 s (the delay doubles).
            #expect(await sleeps.next() == .seconds(1))
            #expect(download.state == .waitingToRetry)
            clock.advance(by: .seconds(1))
            #expect(await sleeps.next() == .seconds(2))
            clock.advance(by: .seconds(2))

            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/flaky")
            // A reset discards what the client's kernel had received but curl not yet read (up to
            // all 200,000 bytes on a loaded machine): the retry asks for what is on disk (and the
            // overlap before it). The early close (FIN) loses nothing: the next retry continues
            // exactly 300,000 bytes later.
            #expect(requests.count == 3)
            let afterReset = try #require(requests[1].rangeStart)
            #expect(afterReset <= fixture.rangeStart(continuing: 200_000))
            #expect(requests[2].rangeStart == fixture.rangeStart(continuing: afterReset + 300_000))
            let events = await download.allEvents()
            #expect(events.compactMap(\.retryDelay) == [.seconds(1), .seconds(2)])
            #expect(
                events.compactMap(\.error).map(\.urlErrorCode) == [
                    .networkConnectionLost, TransportUnderTest.earlyCloseCode,
                ])
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        let clock = ManualClock()
        try await withFixture(Self.retrying(with: clock)) { fixture in
            let body = Body.pattern(count: 50_000, seed: 701)
            let url = fixture.serve("/busy", body) { $0.faults = [.status(503, headers: ["Retry-After": "7"])] }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            var sleeps = clock.sleeps.makeAsyncIterator()
            #expect(await sleeps.next() == .seconds(7))
            let retrying = try #require(await download.waitForEvent { $0.retryDelay != nil })
            #expect(retrying.error?.statusCode == 503)
            #expect(retrying.error?.retryAfter == .seconds(7))

            clock.advance(by: .seconds(6))
            #expect(download.state == .waitingToRetry)
            #expect(fixture.server.requests("/busy").count == 1)
            clock.advance(by: .seconds(1))
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/busy").map(\.status) == [503, 206])
        }
    }

    @Test func permanentFailuresAndExhaustedRetriesFail() async throws {
        let clock = ManualClock()
        try await withFixture(Self.retrying(with: clock)) { fixture in
            let missing = fixture.serve("/missing", .pattern(count: 10)) { $0.faults = [.status(404)] }
            let notFound = await fixture.manager.download(from: missing, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await notFound.fileURL }
            #expect(error.statusCode == 404)

            let down = fixture.serve("/down", .pattern(count: 10)) {
                $0.faults = Array(repeating: .status(500), count: 10)
            }
            let failing = await fixture.manager.download(from: down, to: .directory(fixture.directory))
            var sleeps = clock.sleeps.makeAsyncIterator()
            for expected in [1, 2, 4] {
                #expect(await sleeps.next() == .seconds(expected))
                clock.advance(by: .seconds(expected))
            }
            let last = try await #require(throws: DownloadError.self) { try await failing.fileURL }
            #expect(last.statusCode == 500)
            #expect(fixture.server.requests("/down").count == 4)
        }
    }

    @Test func thePolicyComputesDelays() {
        var policy = DownloadManager.Configuration.RetryPolicy()
        policy.initialDelay = .seconds(1)
        policy.maximumDelay = .seconds(10)
        policy.maximumRetries = 6
        policy.jitter = 0.5
        let reset = DownloadError.network(.networkConnectionLost)
        #expect(policy.delay(after: reset, retry: 1, random: 0) == .seconds(1))
        #expect(policy.delay(after: reset, retry: 3, random: 0) == .seconds(4))
        #expect(policy.delay(after: reset, retry: 6, random: 0) == .seconds(10))
        #expect(policy.delay(after: reset, retry: 2, random: 1) == .seconds(3))
        #expect(policy.delay(after: reset, retry: 2, random: -1) == .seconds(1))
        #expect(policy.delay(after: reset, retry: 7, random: 0) == nil)
        #expect(policy.delay(after: .httpStatus(404), retry: 1, random: 0) == nil)
        #expect(policy.delay(after: .httpStatus(429, retryAfter: .seconds(30)), retry: 1, random: 0.9) == .seconds(30))
        #expect(policy.delay(after: .httpStatus(503, retryAfter: .seconds(3600)), retry: 1, random: 0) == nil)
        #expect(policy.delay(after: .fileSystem(path: "/x", reason: "full"), retry: 1, random: 0) == nil)
        #expect(DownloadManager.Configuration.RetryPolicy.none.delay(after: reset, retry: 1, random: 0) == nil)
    }

    @Test func retryAfterIsReadAsSecondsOrADate() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ResponseHead.parseRetryAfter("120", now: now) == .seconds(120))
        #expect(ResponseHead.parseRetryAfter(" 0 ", now: now) == .seconds(0))
        let later = "Fri, 15 Jan 2027 08:00:30 GMT"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.date(from: later)!
        #expect(ResponseHead.parseRetryAfter(later, now: date.addingTimeInterval(-30)) == .seconds(30))
        #expect(ResponseHead.parseRetryAfter("soon", now: now) == nil)
        #expect(ResponseHead.parseRetryAfter("-5", now: now) == nil)
    }
}
