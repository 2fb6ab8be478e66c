@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A receiver that cannot take body bytes yet (its disk is behind) answers `.later`: the
/// transport holds that transfer and hands the same bytes again once resumed. libcurl pauses the
/// one transfer and goes on with the others.
@Suite(.timeLimit(.minutes(1)))
struct TransportPauseTests {
    /// Refuses the first chunk of the body (if told to; or the first once `refusingAfter` bytes
    /// were taken), then takes everything.
    final class Receiver: TransportReceiver {
        private struct State {
            var refused: [UInt8]?
            var taken: [UInt8] = []
            /// How many bytes were taken when a chunk was refused.
            var takenBeforeRefusal: Int?
        }

        private let state = Locked(State())
        let refusals: AsyncStream<any TransportTask>
        private let refusal: AsyncStream<any TransportTask>.Continuation
        let ends: AsyncStream<TransportFailure?>
        private let end: AsyncStream<TransportFailure?>.Continuation
        private let refusesFirstChunk: Bool
        private let refusingAfter: Int
        private let resumesAtOnce: Bool
        private let cancelsAtOnce: Bool

        /// - Parameters:
        ///   - resumesAtOnce: asks for the bytes again from a thread of its own as it refuses
        ///     them, as a disk that caught up would.
        ///   - cancelsAtOnce: cancels the task from a thread of its own as it refuses the bytes.
        ///
        ///   Not from the test's task: on Linux, every URLSession of the process waits while one
        ///   delegate queue waits, and a task of the concurrency pool may wait for a turn behind
        ///   other tests for many seconds.
        init(
            refusesFirstChunk: Bool, refusingAfter: Int = 0, resumesAtOnce: Bool = false, cancelsAtOnce: Bool = false
        ) {
            self.refusesFirstChunk = refusesFirstChunk
            self.refusingAfter = refusingAfter
            self.resumesAtOnce = resumesAtOnce
            self.cancelsAtOnce = cancelsAtOnce
            (refusals, refusal) = AsyncStream.makeStream()
            (ends, end) = AsyncStream.makeStream()
        }

        /// The chunk refused, and the bytes taken, in order.
        var refused: [UInt8]? { state.withLock { $0.refused } }
        var taken: [UInt8] { state.withLock { $0.taken } }
        var takenBeforeRefusal: Int? { state.withLock { $0.takenBeforeRefusal } }

        func willRedirect(
            _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
        ) {
            answer(proposed)
        }
        func didReceive(_ response: ServerResponse) {}
        func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
            let refuses = state.withLock { state in
                guard refusesFirstChunk, state.refused == nil, state.taken.count >= refusingAfter else {
                    state.taken += bytes
                    return false
                }
                state.refused = Array(bytes)
                state.takenBeforeRefusal = state.taken.count
                return true
            }
            guard refuses else { return .taken }
            refusal.yield(task)
            if resumesAtOnce {
                Thread.detachNewThread { task.resumeBody() }
            }
            if cancelsAtOnce {
                Thread.detachNewThread { task.cancel() }
            }
            return .later
        }
        func didComplete(_ failure: TransportFailure?) { end.yield(failure) }

        func firstRefusal() async -> (any TransportTask)? {
            for await task in refusals { return task }
            return nil
        }
        func firstEnd() async -> TransportFailure?? {
            for await failure in ends { return .some(failure) }
            return nil
        }
    }

    enum Kind: String, CaseIterable, Sendable {
        case libcurl, urlSession
    }

    static func transport(_ kind: Kind) -> (any Transport)? {
        switch kind {
        case .libcurl:
            CurlTransport(
                name: "pause-\(UUID().uuidString)",
                settings: .init(requestTimeout: .seconds(30), maximumConnectionsPerHost: 4, additionalHeaders: [:]))
        case .urlSession:
            URLSessionTransport(
                identifier: "pause-\(UUID().uuidString)", configuration: .ephemeral, pendingCallbackLimit: 8)
        }
    }

    static var kinds: [Kind] {
        TransportUnderTest.isLibcurlAvailable ? Kind.allCases : [.urlSession]
    }

    @Test(arguments: kinds)
    func theRefusedBytesComeAgainAfterResumeAndTheBodyIsWhole(_ kind: Kind) async throws {
        let transport = try #require(Self.transport(kind))
        defer { Task { await transport.invalidate() } }
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: 3_000_000, seed: 21)
        server.setRoute("/file.bin", Route(body: body))
        let receiver = Receiver(refusesFirstChunk: true, resumesAtOnce: true)
        _ = transport.start(URLRequest(url: server.url("/file.bin")), receiver: receiver)

        #expect(await receiver.firstEnd() == .some(nil))
        let refused = try #require(receiver.refused)
        let taken = receiver.taken
        #expect(Int64(taken.count) == body.count)
        #expect(Data(taken.prefix(refused.count)) == Data(refused), "the refused chunk came again, first")
        #expect(Data(taken) == body.bytes(0..<body.count), "the body arrived whole and in order")
    }

    /// A pause while bytes wait: the transport hands over nothing after them, so what the receiver
    /// took is the body's first bytes in one piece. (URLSession went on handing over the chunks
    /// queued behind the dropped one: paused downloads came out shifted from that byte on.)
    @Test(arguments: kinds)
    func aCancelWhileBytesWaitHandsOverNothingAfterThem(_ kind: Kind) async throws {
        let transport = try #require(Self.transport(kind))
        defer { Task { await transport.invalidate() } }
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: 4_000_000, seed: 23)
        server.setRoute("/file.bin", Route(body: body))
        let receiver = Receiver(refusesFirstChunk: true, refusingAfter: 500_000, cancelsAtOnce: true)
        _ = transport.start(URLRequest(url: server.url("/file.bin")), receiver: receiver)

        #expect(await receiver.firstRefusal() != nil)
        // It ends cancelled, or (on URLSession, whose cancel can come after the last byte) not.
        _ = try #require(await receiver.firstEnd())
        let taken = receiver.taken
        #expect(taken.count == receiver.takenBeforeRefusal, "nothing was taken after the refused chunk")
        #expect(Data(taken) == body.bytes(0..<Int64(taken.count)), "the bytes taken are the body's first")
    }

    @Test(.enabled(if: TransportUnderTest.isLibcurlAvailable, "libcurl is not available"))
    func aPausedTransferHoldsBackNoOtherOnLibcurl() async throws {
        let transport = try #require(Self.transport(.libcurl))
        defer { Task { await transport.invalidate() } }
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: 2_000_000, seed: 22)
        server.setRoute("/paused.bin", Route(body: body))
        server.setRoute("/other.bin", Route(body: body))

        let paused = Receiver(refusesFirstChunk: true)
        _ = transport.start(URLRequest(url: server.url("/paused.bin")), receiver: paused)
        let task = try #require(await paused.firstRefusal())
        // On the same thread and multi handle, the other transfer runs to its end meanwhile.
        let other = Receiver(refusesFirstChunk: false)
        _ = transport.start(URLRequest(url: server.url("/other.bin")), receiver: other)
        #expect(await other.firstEnd() == .some(nil))
        #expect(Int64(other.taken.count) == body.count)
        #expect(paused.taken.isEmpty, "nothing was delivered to the paused transfer")

        task.resumeBody()
        #expect(await paused.firstEnd() == .some(nil))
        #expect(Int64(paused.taken.count) == body.count)
    }
}
