@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The segmented engine driven by a scripted transport, without sockets: which ranges each
/// connection asks for, where their bytes land, retries, a server that ignores ranges, a stop.
@Suite(.timeLimit(.minutes(1))) struct SegmentedTransferTests {
    static let body = patternBytes(40)
    static let validator = "\"v1\""

    /// A bench whose record says the file has 40 bytes and a strong validator.
    static func bench() throws -> TransferBench {
        try TransferBench { record in
            record.validator = Validator(etag: validator)
            record.expectedLength = 40
        }
    }

    /// Answers `request` with a `206` of `range` of the file.
    static func respond(_ request: ScriptedRequest, _ range: Range<Int>) {
        request.respond(
            206, ["Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/40", "ETag": validator])
    }

    static var cancelled: TransportFailure { TransportFailure(code: .cancelled, reason: "cancelled") }

    /// Starts the file over two connections, a segment of 20 bytes each, and answers both with
    /// their ranges: the transfer, its ends, and the two requests.
    static func startAnswered(
        _ bench: TransferBench, clock: any Clock<Duration> = ContinuousClock(),
        network: any NetworkMonitor = FixedNetwork(isUp: true)
    ) async -> (SegmentedTransfer, AsyncStream<SegmentedTransfer.Ending>, ScriptedRequest, ScriptedRequest) {
        let (transfer, ends) = bench.startSegmented(
            SegmentMap(length: 40, connections: 2, minimumSize: 10), connections: 2, clock: clock, network: network)
        let first = await bench.transport.request(1)
        let second = await bench.transport.request(2)
        respond(first, 0..<20)
        respond(second, 20..<40)
        return (transfer, ends, first, second)
    }

    @Test func eachConnectionAsksForItsSegmentAndWritesItInPlace() async throws {
        let bench = try Self.bench()
        let (_, ends) = bench.startSegmented(SegmentMap(length: 40, connections: 2, minimumSize: 10), connections: 2)
        let first = await bench.transport.request(1)
        let second = await bench.transport.request(2)
        #expect(first.request.value(forHTTPHeaderField: "Range") == "bytes=0-19")
        #expect(second.request.value(forHTTPHeaderField: "Range") == "bytes=20-39")
        #expect(first.request.value(forHTTPHeaderField: "If-Range") == Self.validator)
        #expect(second.request.value(forHTTPHeaderField: "If-Range") == Self.validator)
        // The second segment's bytes come first: each lands at its own place.
        Self.respond(second, 20..<40)
        second.send(Array(Self.body[20..<40]))
        Self.respond(first, 0..<20)
        first.send(Array(Self.body[0..<20]))
        second.complete()
        first.complete()

        var iterator = ends.makeAsyncIterator()
        let ending = await iterator.next()
        #expect(ending?.end == .finished)
        #expect(ending?.rangesRefused == false)
        #expect(bench.partial == Self.body)
        // A finished file's record has no segments: the partial file is the file.
        #expect(bench.storedResume?.segments == nil)
        #expect(bench.storedResume?.durableLength == 40)
        #expect(bench.transport.started.count == 2)
    }

    @Test func aFailedSegmentRetriesAloneFromItsBytesOnDiskAfterThePolicysDelay() async throws {
        let bench = try Self.bench()
        let clock = ManualClock()
        let (_, ends, first, second) = await Self.startAnswered(bench, clock: clock)
        second.send(Array(Self.body[20..<25]))
        first.send(Array(Self.body[0..<20]))
        first.complete()
        // The second connection is reset after 5 bytes: they are on disk, and it waits to retry.
        second.complete(TransportFailure(code: .networkConnectionLost, reason: "reset by peer"))
        var sleeps = clock.sleeps.makeAsyncIterator()
        let delay = try #require(await sleeps.next())
        #expect(bench.transport.started.count == 2, "no request before the delay")
        clock.advance(by: delay)

        let retry = await bench.transport.request(3)
        #expect(retry.request.value(forHTTPHeaderField: "Range") == "bytes=25-39")
        Self.respond(retry, 25..<40)
        retry.send(Array(Self.body[25..<40]))
        retry.complete()
        var iterator = ends.makeAsyncIterator()
        #expect(await iterator.next()?.end == .finished)
        #expect(bench.partial == Self.body)
    }

    @Test func aSegmentThatLosesTheNetworkEndsTheAttemptInsteadOfRetrying() async throws {
        let bench = try Self.bench()
        // The retries would wait on this clock, which never moves: only an end without them
        // ends the test.
        let (_, ends, first, second) = await Self.startAnswered(
            bench, clock: ManualClock(), network: FixedNetwork(isUp: false))
        first.send(Array(Self.body[0..<6]))
        second.complete(TransportFailure(code: .notConnectedToInternet, reason: "the network is down"))
        // The download decides now (it waits for the network): the other connection stops.
        #expect(first.cancelCount >= 1)
        first.complete(Self.cancelled)
        var iterator = ends.makeAsyncIterator()
        let ending = await iterator.next()
        #expect(ending?.end.failureKind == .network)
        #expect(bench.transport.started.count == 2)
        #expect(bench.storedResume?.segments?.first?.durable == 6)
    }

    @Test func aWholeFileAnswerEndsTheAttemptSayingRangesAreRefused() async throws {
        let bench = try Self.bench()
        let (_, ends) = bench.startSegmented(SegmentMap(length: 40, connections: 2, minimumSize: 10), connections: 2)
        let first = await bench.transport.request(1)
        let second = await bench.transport.request(2)
        first.respond(200, ["Content-Length": "40", "ETag": Self.validator])
        // The answer stops its request; its end stops the other connection.
        #expect(first.cancelCount >= 1)
        first.complete(Self.cancelled)
        #expect(second.cancelCount >= 1)
        second.complete(Self.cancelled)
        var iterator = ends.makeAsyncIterator()
        let ending = await iterator.next()
        #expect(ending?.end == .incomplete(progressed: true))
        #expect(ending?.rangesRefused == true)
    }

    @Test func aStopKeepsEachSegmentsBytesInTheRecord() async throws {
        let bench = try Self.bench()
        let (transfer, ends, first, second) = await Self.startAnswered(bench)
        first.send(Array(Self.body[0..<8]))
        second.send(Array(Self.body[20..<24]))
        transfer.stop(keepingResumeData: true)
        #expect(first.cancelCount >= 1 && second.cancelCount >= 1)
        first.complete(Self.cancelled)
        second.complete(Self.cancelled)
        var iterator = ends.makeAsyncIterator()
        #expect(await iterator.next()?.end == .cancelled)
        let segments = try #require(bench.storedResume?.segments)
        #expect(
            segments == [
                SavedSegment(start: 0, end: 20, durable: 8), SavedSegment(start: 20, end: 40, durable: 4),
            ])
        #expect(bench.storedResume?.durableLength == 8)
    }
}
