@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// One file over several connections, through a manager: segments reassemble byte-identically,
/// a connection that finishes takes over half of the largest remaining segment, a failed segment
/// retries alone, a server that ignores ranges gets one connection.
@Suite(.timeLimit(.minutes(2)))
struct SegmentedDownloadTests {
    static let kibibyte: Int64 = 1024

    static func segmented(
        _ connections: Int, minimum: Int64 = 256 * kibibyte
    ) -> (inout DownloadManager.Configuration) -> Void {
        { configuration in
            configuration.network.maximumConnectionsPerFile = connections
            configuration.network.minimumSegmentSize = minimum
            configuration.network.maximumConnectionsPerHost = max(connections, 6)
        }
    }

    /// The segment requests of `path` (every request but the first, which asked for the first
    /// segment only), as the byte ranges they asked for.
    static func segmentRanges(_ server: TestServer, _ path: String) -> [ClosedRange<Int64>] {
        server.requests(path).dropFirst().compactMap { request in
            guard let start = request.rangeStart, let end = request.rangeEnd else { return nil }
            return start...end
        }
    }

    @Test func segmentsReassembleByteIdenticallyAndTheDigestMatches() async throws {
        try await withFixture(Self.segmented(4)) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 1400)
            // The segment requests stop early until the test has seen all four: they are at once.
            let url = fixture.serve("/four.bin", body) {
                $0.faults = [.none] + Array(repeating: .holdAfter(1000), count: 4)
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("four.bin")))
            request.expectedDigest = ExpectedDigestTests.digest(.sha256, of: body)
            let download = await fixture.manager.download(request)
            #expect(await fixture.server.waitForRequests(5, path: "/four.bin"))
            fixture.server.release("/four.bin")
            try body.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/four.bin")
            // The first asks for the first segment; its answer splits the rest in four.
            #expect(requests.first?.rangeStart == 0)
            #expect(requests.first?.rangeEnd == 256 * Self.kibibyte - 1)
            let ranges = Self.segmentRanges(fixture.server, "/four.bin")
            #expect(ranges.count >= 4)
            #expect(requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"\(StableHash.hex("/four.bin"))\"" })
            // Four connections at once, each to its own part of the rest.
            #expect(Set(requests.dropFirst().map(\.connection)).count >= 4)
            let events = await download.allEvents()
            let started = events.compactMap { $0.state == nil ? $0.segment : nil }
            #expect(started.count >= 8, "\(events)")
            #expect(fixture.storedRecord(download.id) == nil)
        }
    }

    @Test func aConnectionThatFinishesTakesOverHalfOfTheLargestRemainingSegment() async throws {
        try await withFixture(Self.segmented(4)) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 1401)
            // The first segment request that arrives stops after 10,000 bytes until released.
            let url = fixture.serve("/steal.bin", body) { $0.faults = [.none, .holdAfter(10_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("steal.bin")))
            let held = try #require(await Self.firstSegmentRequest(fixture.server, "/steal.bin"))
            let heldEnd = try #require(held.rangeEnd) + 1
            // The held request's segment (its request starts with the overlap before it when those
            // bytes are on disk).
            let heldSegment = await download.waitForEvent { event in
                event.segment?.upperBound == heldEnd && event.description.hasSuffix("started")
            }
            let heldStart = try #require(heldSegment?.segment?.lowerBound)
            // The others finish theirs, then one takes the second half of the held segment.
            let takeover = await download.waitForEvent { event in
                guard let range = event.segment, event.description.hasSuffix("started") else { return false }
                return range.lowerBound > heldStart && range.upperBound == heldEnd
            }
            let taken = try #require(takeover?.segment)
            #expect(taken.lowerBound > heldStart + 10_000)
            fixture.server.release("/steal.bin")
            try body.expectMatches(try await download.fileURL)
            // The held request stopped where the other connection's part began: nothing was
            // received twice.
            let events = await download.allEvents()
            #expect(events.contains(.segmentFinished(heldStart..<taken.lowerBound)), "\(events)")
            #expect(events.contains(.segmentFinished(taken)))
            #expect(fixture.server.requests("/steal.bin").contains { $0.rangeStart == taken.lowerBound })
        }
    }

    /// The first request for a segment (after the one for the first segment), once it arrived.
    static func firstSegmentRequest(_ server: TestServer, _ path: String) async -> RecordedRequest? {
        await server.waitForRequests(2, path: path)
        return server.requests(path).dropFirst().first
    }

    @Test func aSegmentWhoseConnectionIsResetRetriesAloneFromItsBytesOnDisk() async throws {
        try await withFixture({
            Self.segmented(4)(&$0)
            $0.retry.maximumRetries = 2
            $0.retry.initialDelay = .milliseconds(10)
        }) { fixture in
            // Segments of 434,464 bytes: too small to split again (no takeovers).
            let body = Body.pattern(count: 2_000_000, seed: 1402)
            let url = fixture.serve("/reset.bin", body) { $0.faults = [.none, .none, .resetAfter(100_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("reset.bin")))
            try body.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/reset.bin")
            #expect(requests.count == 6, "\(requests.map { "\($0.rangeStart ?? -1)-\($0.rangeEnd ?? -1)" })")
            // The other segments were each asked for once; the reset one once more, from where
            // its bytes on disk end (what the client had received of the 100,000 sent) to its end.
            let reset = requests[2]
            for other in [requests[1], requests[3], requests[4]] {
                #expect(requests.filter { $0.rangeStart == other.rangeStart }.count == 1)
            }
            let retry = try #require(requests.first { $0.index != reset.index && $0.rangeEnd == reset.rangeEnd })
            #expect(try #require(retry.rangeStart) >= (reset.rangeStart ?? 0))
            #expect(try #require(retry.rangeStart) <= (reset.rangeStart ?? 0) + 100_000)
            // The download itself never failed nor waited to retry.
            let events = await download.allEvents()
            #expect(!events.contains { $0.state == .waitingToRetry || $0.state == .failed })
        }
    }

    @Test func aServerThatIgnoresRangesGetsOneConnection() async throws {
        try await withFixture(Self.segmented(4)) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 1403)
            let url = fixture.serve("/whole.bin", body) { $0.supportsRanges = false }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("whole.bin")))
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/whole.bin")
            #expect(requests.count == 1)
            #expect(requests.first?.status == 200)
            #expect(await download.allEvents().allSatisfy { $0.segment == nil })
        }
    }

    /// A segment answered with the whole file asks again without `If-Range` (the server may
    /// ignore only that, see `IfRangeIgnoringServerTests`); answered so again, the server does not
    /// serve ranges: the rest comes over one connection, in one request from the first gap, whose
    /// whole file is read on after the bytes before the gap matched.
    @Test func aSegmentAnsweredWithTheWholeFileFallsBackToOneConnection() async throws {
        try await withFixture(Self.segmented(4)) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 1404)
            let url = fixture.serve("/refused.bin", body) {
                $0.faults = [.none] + Array(repeating: .ignoreRange, count: 64)
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("refused.bin")))
            try body.expectMatches(try await download.fileURL)
            let events = await download.allEvents()
            #expect(!events.contains(.restarted))
            // (The server logs a request when its connection ends: a segment's request stopped by
            // a 200 may be logged after the last one.)
            let requests = fixture.server.requests("/refused.bin")
            #expect(requests.dropFirst().allSatisfy { $0.status == 200 })
            let rest = requests.filter { $0.rangeEnd == nil }
            #expect(rest.count == 1)
            let last = try #require(rest.first)
            #expect(last.header("If-Range") == nil)
            #expect(last.bodyBytesSent == body.count)
            #expect(try #require(last.rangeStart) >= fixture.rangeStart(continuing: 256 * Self.kibibyte))
        }
    }

    @Test func aSegmentedFileWithoutAValidatorComesOverOneConnection() async throws {
        try await withFixture(Self.segmented(4)) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 1405)
            let url = fixture.serve("/plain.bin", body) { route in
                route.etag = nil
                route.lastModified = nil
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("plain.bin")))
            try body.expectMatches(try await download.fileURL)
            // The first segment, then the rest in one request (from the overlap compared with the
            // bytes on disk), never split: without a validator, segments could not be told apart
            // from pieces of another version.
            let overlap = Int64(fixture.configuration.resumption.overlapLength)
            #expect(fixture.server.requests("/plain.bin").map(\.rangeStart) == [0, 256 * Self.kibibyte - overlap])
        }
    }

    /// Pausing and resuming, or cancelling with the bytes kept and asking again.
    @Test(arguments: [false, true])
    func stoppingAndGoingOnContinuesEverySegmentFromItsBytesOnDisk(byCancelling: Bool) async throws {
        try await withFixture(Self.segmented(4)) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 1406)
            // The segment after the first asks for the overlap before it first (the first segment
            // is on disk): each segment gets 50,000 bytes of its own at least.
            let overlap = Int64(fixture.configuration.resumption.overlapLength)
            let url = fixture.serve("/paused.bin", body) {
                $0.faults = [.none] + Array(repeating: .holdAfter(50_000 + overlap), count: 4)
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("paused.bin")))
            request.expectedDigest = ExpectedDigestTests.digest(.sha256, of: body)
            var download = await fixture.manager.download(request)
            await fixture.server.waitForRequests(5, path: "/paused.bin")
            await download.waitForBytes(256 * Self.kibibyte + 4 * 50_000 + 3 * overlap)
            if byCancelling {
                await download.cancel(keepingPartialData: true)
            } else {
                await download.pause()
            }
            let record = try #require(fixture.storedRecord(download.id)?.resume)
            let saved = try #require(record.segments)
            #expect(saved.count == 5)
            #expect(
                saved.dropFirst().allSatisfy { $0.durable == 50_000 + ($0.start == 256 * Self.kibibyte ? 0 : overlap) },
                "\(saved)")
            // The digest covers the bytes from the first with no gap (the first segment and the
            // next one's 50,000), read back from the disk, and is kept with the record.
            #expect(record.durableLength == 256 * Self.kibibyte + 50_000)
            #expect(record.digest?.length == record.durableLength)
            let before = fixture.server.requests("/paused.bin").count
            fixture.server.release("/paused.bin")
            if byCancelling {
                download = await fixture.manager.download(request)
            } else {
                await download.resume()
            }
            try body.expectMatches(try await download.fileURL)
            // Each unfinished segment is asked for from its bytes on disk (after the overlap before
            // them, compared first), and only that.
            let resumed = fixture.server.requests("/paused.bin").dropFirst(before)
            #expect(
                Set(resumed.compactMap(\.rangeStart)) == Set(saved.dropFirst().map { $0.start + $0.durable - overlap }))
            #expect(resumed.count == 4)
        }
    }

    @Test func aRequestsLimitCountsEveryConnectionOfItsDownload() async throws {
        let clock = ManualClock()
        try await withFixture({
            Self.segmented(4)(&$0)
            $0.run(on: clock)
        }) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 1407)
            let url = fixture.serve("/limited.bin", body)
            let advancer = BandwidthLimitTests.Advancer(clock)
            defer { advancer.stop() }
            var request = DownloadRequest(url: url, to: .file(fixture.file("limited.bin")))
            request.maximumBytesPerSecond = 400_000
            let download = await fixture.manager.download(request)
            try body.expectMatches(try await download.fileURL)
            // 2 MB at 400,000 bytes/s, whatever the connections: less the burst and one chunk
            // per connection that may leave the bucket in debt.
            let limiter = try #require(fixture.manager.bandwidthLimiter)
            let chunk = Double(limiter.largestChunkAdmitted(for: download.id))
            let time = BandwidthLimitTests.seconds(advancer.time)
            #expect(time >= (2_000_000 - 40_000 - 4 * chunk) / 400_000, "\(time) s on the clock")
            // Every byte the server sent passed the limiter: the file, and the overlap the segment
            // after the first (on disk) asked for again.
            #expect(
                limiter.bytesAdmitted(for: download.id) == 2_000_000
                    + Int64(fixture.configuration.resumption.overlapLength))
        }
    }

    @Test func everyConnectionCountsAgainstTheManagersLimits() async throws {
        try await withFixture({
            Self.segmented(4)(&$0)
            $0.scheduling.maximumConcurrentDownloads = 3
            $0.scheduling.maximumConcurrentDownloadsPerHost = 3
        }) { fixture in
            let big = Body.pattern(count: 3_000_000, seed: 1408)
            // Every segment request stops after 10,000 bytes until released.
            let bigURL = fixture.serve("/big.bin", big) {
                $0.faults = [.none] + Array(repeating: .holdAfter(10_000), count: 8)
            }
            let small = Body.pattern(count: 100_000, seed: 1409)
            let smallURL = fixture.serve("/small.bin", small)
            let first = await fixture.manager.download(from: bigURL, to: .file(fixture.file("big.bin")))
            // The first segment, then three of the four others at once: the download's own slot
            // and the two the limit of 3 leaves.
            await fixture.server.waitForRequests(4, path: "/big.bin")
            let second = await fixture.manager.download(from: smallURL, to: .file(fixture.file("small.bin")))
            #expect(second.state == .queued)
            #expect(fixture.server.requests("/big.bin").count == 4)
            #expect(fixture.server.requests("/small.bin").isEmpty)
            fixture.server.release("/big.bin")
            try big.expectMatches(try await first.fileURL)
            try small.expectMatches(try await second.fileURL)
        }
    }
}
