@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the libcurl transport ends its requests: every request gets exactly one end, also when
/// it is cancelled before it starts or the transport is invalidated under it.
@Suite(.timeLimit(.minutes(1)))
struct CurlTransportEndTests {
    /// Records the events of one request.
    final class Receiver: TransportReceiver {
        let heads = Locked<[Int]>([])
        let bytes = Locked(0)
        let ends: AsyncStream<TransportFailure?>
        private let continuation: AsyncStream<TransportFailure?>.Continuation

        init() {
            (ends, continuation) = AsyncStream.makeStream()
        }

        func willRedirect(
            _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
        ) {
            answer(proposed)
        }
        func didReceive(_ response: ServerResponse) { heads.withLock { $0.append(response.statusCode) } }
        func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
            self.bytes.withLock { $0 += bytes.count }
            return .taken
        }
        func didComplete(_ failure: TransportFailure?) { continuation.yield(failure) }

        /// The first end the request reported.
        func end() async -> TransportFailure?? {
            for await end in ends { return .some(end) }
            return nil
        }
    }

    static func transport(requestTimeout: Duration = .seconds(30)) -> CurlTransport? {
        CurlTransport(
            name: "tests-\(UUID().uuidString)",
            settings: .init(requestTimeout: requestTimeout, maximumConnectionsPerHost: 4, additionalHeaders: [:]))
    }

    @Test(.enabled(if: TransportUnderTest.isLibcurlAvailable, "libcurl is not available"))
    func aRequestFollowsARedirectAndDeliversTheBody() async throws {
        let transport = try #require(Self.transport())
        defer { Task { await transport.invalidate() } }
        let server = try TestServer()
        defer { server.shutdown() }
        server.setRoute("/file.bin", Route(body: .pattern(count: 100_000, seed: 3)))
        server.setRoute("/old.bin", .redirect(302, to: "/file.bin"))
        let receiver = Receiver()
        _ = transport.start(URLRequest(url: server.url("/old.bin")), receiver: receiver)
        let end = await receiver.end()
        #expect(end == .some(nil))
        #expect(receiver.heads.withLock { $0 } == [200])
        #expect(receiver.bytes.withLock { $0 } == 100_000)
    }

    @Test(.enabled(if: TransportUnderTest.isLibcurlAvailable, "libcurl is not available"))
    func aCancelledRequestEndsOnceAsCancelled() async throws {
        // The held response must outlast whatever delays a loaded machine puts between the bytes
        // and the cancel: only the cancel may end it (a 30 s timeout once did, measured).
        let transport = try #require(Self.transport(requestTimeout: .seconds(600)))
        defer { Task { await transport.invalidate() } }
        let server = try TestServer()
        defer { server.shutdown() }
        var route = Route(body: .pattern(count: 1_000_000, seed: 4))
        route.faults = [.holdAfter(1000)]
        server.setRoute("/held.bin", route)
        let receiver = Receiver()
        let task = transport.start(URLRequest(url: server.url("/held.bin")), receiver: receiver)
        #expect(await server.waitForBodyBytes(1000, timeout: .seconds(20)))
        task.cancel()
        task.cancel()
        let end = await receiver.end()
        #expect(end??.isCancellation == true)
        server.release("/held.bin")
    }

    @Test(.enabled(if: TransportUnderTest.isLibcurlAvailable, "libcurl is not available"))
    func aRequestStartedAsTheTransportEndsEndsCancelled() async throws {
        let transport = try #require(Self.transport())
        await transport.invalidate()
        let receiver = Receiver()
        _ = transport.start(URLRequest(url: URL(string: "http://127.0.0.1:9/never")!), receiver: receiver)
        let end = await receiver.end()
        #expect(end??.isCancellation == true)
    }
}
