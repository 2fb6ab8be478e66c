@testable import Downstream
import Foundation
import Testing
import DownstreamTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engines behind a download's attempts, driven without a download and without sockets: the
/// download gives an attempt and gets back one end.
@Suite(.timeLimit(.minutes(1))) struct DownloadEnginesTests {
    /// Runs `attempt` on `engines`; returns the attempt's handle and the stream of its ends.
    static func run(
        _ engines: DownloadEngines, _ attempt: Attempt, of target: AttemptTarget
    ) -> (RunningAttempt, AsyncStream<AttemptEnd>) {
        let (ends, reported) = AsyncStream.makeStream(of: AttemptEnd.self)
        let running = engines.run(attempt, of: target) { reported.yield($0) }
        return (running, ends)
    }

    @Test func consecutiveRangesRunInsideOneAttempt() async throws {
        let bench = try TransferBench()
        let body = patternBytes(10)
        let sent = Locked(0)
        let target = bench.target(
            engine: { $0.maximumBytesPerRequest = 4 }, willSend: { _ in sent.withLock { $0 += 1 } })
        // Kept, as its download keeps it: an attempt let go of starts no next range.
        let (running, ends) = Self.run(
            DownloadEngines(ranged: bench.transport), Attempt(number: 7, kind: .first, url: bench.url), of: target)

        // The engine plans each range: where it starts, its end, and the validator that guards it.
        let ranges = [("bytes=0-3", nil, 0..<4), ("bytes=4-7", "\"v1\"", 4..<8), ("bytes=8-", "\"v1\"", 8..<10)]
        for (number, (range, ifRange, bytes)) in ranges.enumerated() {
            let request = await bench.transport.request(number + 1)
            #expect(request.request.value(forHTTPHeaderField: "Range") == range)
            #expect(request.request.value(forHTTPHeaderField: "If-Range") == ifRange)
            #expect(request.request.value(forHTTPHeaderField: "Accept-Encoding") == "identity")
            request.respond(
                206, ["Content-Range": "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/10", "ETag": "\"v1\""])
            request.send(Array(body[bytes]))
            request.complete()
        }

        // One end for the three requests: the download saw one attempt.
        var iterator = ends.makeAsyncIterator()
        let end = await iterator.next()
        #expect(end?.transferEnd == .finished)
        #expect(end?.failedBeforeSending == false)
        #expect(bench.partial == body)
        #expect(sent.withLock { $0 } == 3)
        #expect(bench.transport.started.count == 3)
        withExtendedLifetime(running) {}
    }

    /// A request keeps the closure its end goes to, and the attempt keeps its request: the closure
    /// keeps the attempt weakly. A system task may never end in this process (it goes on after a
    /// shutdown): an attempt its download let go of is not kept alive by its own request, and
    /// starts no next range.
    @Test func anAttemptLetGoOfIsNotKeptByItsRequest() async throws {
        let bench = try TransferBench()
        let body = patternBytes(10)
        let target = bench.target(engine: { $0.maximumBytesPerRequest = 4 })
        weak var handle: RunningAttempt?
        let ends: AsyncStream<AttemptEnd>
        do {
            let (running, stream) = Self.run(
                DownloadEngines(ranged: bench.transport), Attempt(number: 1, kind: .first, url: bench.url), of: target)
            handle = running
            ends = stream
        }
        let request = await bench.transport.request(1)
        // The file-work closure that launched the request has returned once a barrier ran.
        await withCheckedContinuation { continuation in
            FileWork.queue.async(flags: .barrier) { continuation.resume() }
        }
        #expect(handle == nil, "the request keeps its attempt")

        request.respond(206, ["Content-Range": "bytes 0-3/10", "ETag": "\"v1\""])
        request.send(Array(body[0..<4]))
        request.complete()
        var iterator = ends.makeAsyncIterator()
        #expect(await iterator.next()?.transferEnd == .incomplete(progressed: true))
        #expect(bench.transport.started.count == 1)
    }

    @Test func credentialsAndAConditionalCopyGoIntoTheFirstRequestOnly() async throws {
        let bench = try TransferBench()
        let target = bench.target()
        let copy = ExistingCopy(
            path: "/elsewhere/file.bin", validator: Validator(etag: "\"old\""), modified: Date(timeIntervalSince1970: 0)
        )
        let attempt = Attempt(
            number: 1, kind: .first, url: bench.url, credentials: RequestCredentials(authorization: "Bearer t"),
            existingCopy: copy)
        _ = Self.run(DownloadEngines(ranged: bench.transport), attempt, of: target)
        let request = await bench.transport.request(1)
        #expect(request.request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        #expect(request.request.value(forHTTPHeaderField: "If-None-Match") == "\"old\"")
        #expect(request.request.value(forHTTPHeaderField: "If-Modified-Since") == "Thu, 01 Jan 1970 00:00:00 GMT")
        request.complete(TransportFailure(code: .cancelled, reason: "the test is over"))
    }

    @Test func aStopWhileConnectionsAreBorrowedEndsTheAttemptWithoutARequest() async throws {
        // A file that can be split: its first range showed its length and a strong validator.
        let bench = try TransferBench { record in
            record.validator = Validator(etag: "\"v1\"")
            record.expectedLength = 40
            record.response = ServerResponse(url: record.url, statusCode: 206, headers: [:])
        }
        let (asked, ask) = AsyncStream.makeStream(of: Int.self)
        let (given, give) = AsyncStream.makeStream(of: Int.self)
        let returns = Locked(0)
        let target = bench.target(
            engine: {
                $0.connectionsPerFile = 4
                $0.minimumSegmentSize = 10
            },
            borrow: { wanted in
                ask.yield(wanted)
                for await count in given { return count }
                return 0
            },
            returned: { returns.withLock { $0 += 1 } })
        let (running, ends) = Self.run(
            DownloadEngines(ranged: bench.transport), Attempt(number: 1, kind: .first, url: bench.url), of: target)

        var askedIterator = asked.makeAsyncIterator()
        let wanted = await askedIterator.next()
        #expect(wanted == 3)
        // Paused while the manager is asked; the manager then gives two connections.
        running.stop(keepingResumeData: true)
        give.yield(2)

        var iterator = ends.makeAsyncIterator()
        let end = await iterator.next()
        #expect(end?.transferEnd == .cancelled)
        #expect(returns.withLock { $0 } == 1, "the connections given are given back")
        #expect(bench.transport.started.isEmpty)
    }

    @Test func anAttemptWhosePlacesCannotBeMadeFailsBeforeSending() async throws {
        let bench = try TransferBench()
        // The destination's directory would be where a file is.
        let blocker = bench.directory.appendingPathComponent("blocker")
        try Data("x".utf8).writeWithoutSync(to: blocker)
        let target = bench.target(destination: blocker.appendingPathComponent("file.bin"))
        let (_, ends) = Self.run(
            DownloadEngines(ranged: bench.transport), Attempt(number: 1, kind: .first, url: bench.url), of: target)
        var iterator = ends.makeAsyncIterator()
        let end = await iterator.next()
        #expect(end?.failedBeforeSending == true)
        #expect(end?.transferEnd.failureKind != nil)
        #expect(bench.transport.started.isEmpty)
    }

    @Test func aStopBeforeTheRequestIsLaunchedKeepsItFromStarting() {
        let running = RunningAttempt()
        running.stop(keepingResumeData: false)
        let transfer = StoppableTransfer()
        var started = false
        #expect(!running.launch(transfer) { started = true })
        #expect(!started)
        #expect(transfer.stops == 0)
        #expect(running.isStopped)
    }

    @Test func aStopAfterTheLaunchReachesTheRequest() {
        let running = RunningAttempt()
        let transfer = StoppableTransfer()
        #expect(running.launch(transfer) {})
        #expect(running.runs(transfer))
        running.stop(keepingResumeData: true)
        #expect(transfer.stops == 1)
        // Its end: the next request of the attempt would not start.
        running.requestEnded()
        #expect(!running.runs(transfer))
        #expect(!running.launch(StoppableTransfer()) {})
    }

    final class StoppableTransfer: AttemptTransfer {
        private let count = Locked(0)
        var stops: Int { count.withLock { $0 } }
        func stop(keepingResumeData: Bool) { count.withLock { $0 += 1 } }
    }
}
