import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Throttling, the request log, shutdown and bodies of the loopback test server. Most use `RawHTTPConnection` to see the exact bytes; a few use URLSession
/// to check that a real client agrees.
@Suite(.timeLimit(.minutes(1)))
struct TestServerLifecycleTests {
    // MARK: Throttling

    @Test func throttledBodiesArePaced() throws {
        var route = Route(body: .pattern(count: 50_000))
        route.bytesPerSecond = 200_000
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }

        let start = ContinuousClock.now
        let response = try ServerProbe.get(server)
        let elapsed = ContinuousClock.now - start
        expectSameBytes(response.body, route.body.bytes(0..<50_000))
        #expect(elapsed >= .milliseconds(200))  // 50 KB at 200 KB/s: at least ~0.24 s
    }

    // MARK: Request log and waiting

    @Test func requestLogRecordsEveryField() throws {
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 1000)))
        defer { server.shutdown() }

        _ = try ServerProbe.get(server, "/file?a=1&b=2", headers: ["Range": "bytes=100-199", "X-Custom": "Value"])
        _ = try ServerProbe.get(server, "/file", headers: ["Range": "bytes=-10"])
        _ = try ServerProbe.get(server, "/other")

        let all = server.requests()
        #expect(all.count == 3)
        let first = all[0]
        #expect(first.index == 0)
        #expect(first.method == "GET")
        #expect(first.path == "/file")
        #expect(first.target == "/file?a=1&b=2")
        #expect(first.headers["x-custom"] == "Value")
        #expect(first.header("X-CUSTOM") == "Value")
        #expect(first.header("host") != nil)
        #expect(first.rangeStart == 100)
        #expect(first.rangeEnd == 199)
        #expect(first.status == 206)
        #expect(first.bodyBytesSent == 100)

        let second = all[1]
        #expect(second.index == 1)
        #expect(second.rangeStart == nil)
        #expect(second.rangeSuffixLength == 10)
        #expect(second.bodyBytesSent == 10)
        #expect(second.connection != first.connection)

        #expect(all[2].path == "/other")
        #expect(all[2].index == 0)
        #expect(all[2].status == 404)
        #expect(server.requests("/file").count == 2)
        #expect(server.totalBodyBytesSent == 110 + Int64(all[2].bodyBytesSent))
    }

    @Test func waitForRequestsWakesWhenRequestsArrive() async throws {
        let server = try ServerProbe.server(serving: Route(body: .pattern(count: 10)))
        defer { server.shutdown() }
        let port = server.port

        let client = Task {
            try await onOwnThread {
                for _ in 0..<3 {
                    let connection = try RawHTTPConnection(port: port)
                    try connection.sendRequest("/file")
                    _ = try connection.readResponse()
                }
            }
        }
        #expect(await server.waitForRequests(3, path: "/file"))
        #expect(server.requests("/file").count >= 3)
        try await client.value
        #expect(await server.waitForRequests(3))  // already satisfied
        #expect(await server.waitForRequests(1, path: "/never", timeout: .milliseconds(50)) == false)
    }

    @Test func waitForBodyBytesWakesWhenTheBytesAreSent() async throws {
        var route = Route(body: .pattern(count: 200_000))
        route.faults = [.holdAfter(120_000)]
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }
        let port = server.port

        let client = Task {
            try await onOwnThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("/file")
                return try connection.readResponse()
            }
        }
        #expect(await server.waitForBodyBytes(100_000))
        #expect(server.totalBodyBytesSent >= 100_000)
        #expect(await server.waitForBodyBytes(150_000, timeout: .milliseconds(50)) == false)
        server.release("/file")
        #expect(await server.waitForBodyBytes(200_000))
        #expect(try await client.value.body.count == 200_000)
    }

    @Test func whenBodyBytesReachActsBeforeMoreIsSent() async throws {
        var route = Route(body: .pattern(count: 1_000_000))
        route.writeSize = 10_000
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }
        let port = server.port
        let sentWhenActed = LockedBox<Int64>(-1)
        server.whenBodyBytesReach(300_000) { [server] in sentWhenActed.value = server.totalBodyBytesSent }

        let response = try await onOwnThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("/file")
            return try connection.readResponse()
        }
        #expect(response.body.count == 1_000_000)
        // The action ran as the write that crossed 300,000 bytes was counted, before the next one.
        #expect(sentWhenActed.value >= 300_000)
        #expect(sentWhenActed.value < 300_000 + 10_000)
        // Reached already: at once.
        let late = LockedBox(false)
        server.whenBodyBytesReach(10) { late.value = true }
        #expect(late.value)
    }

    @Test func waitForRequestsReturnsOnShutdownAndCancellation() async throws {
        let server = try TestServer()
        let waiting = Task { await server.waitForRequests(1) }
        let cancelled = Task { await server.waitForRequests(1, path: "/x") }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        server.shutdown()
        #expect(await waiting.value == false)
    }

    // MARK: Shutdown

    @Test func shutdownIsQuickWithBusyConnections() async throws {
        let server = try TestServer()
        var stall = Route(body: .pattern(count: 1_000_000))
        stall.faults = [.stallAfter(1000)]
        var hold = Route(body: .pattern(count: 1_000_000))
        hold.faults = [.holdAfter(1000)]
        var slow = Route(body: .pattern(count: 1_000_000))
        slow.bytesPerSecond = 1000
        server.setRoute("/stall", stall)
        server.setRoute("/hold", hold)
        server.setRoute("/slow", slow)
        server.setRoute("/small", Route(body: .pattern(count: 10)))

        var connections: [RawHTTPConnection] = []
        for path in ["/stall", "/hold", "/slow"] {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.sendRequest(path)
            _ = try connection.readHead()
            connections.append(connection)
        }
        let idle = try RawHTTPConnection(port: server.port)
        try idle.sendRequest("/small")
        _ = try idle.readResponse()
        connections.append(idle)
        let partial = try RawHTTPConnection(port: server.port)
        try partial.send("GET /small HTTP/1.1\r\n")
        connections.append(partial)
        #expect(await server.waitForRequests(4))

        let start = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(1))
        for (number, connection) in connections.enumerated() {
            #expect(connection.readToEnd().ending == .closed, "connection \(number)")
        }
        server.shutdown()  // idempotent
        #expect(throws: (any Error).self) { _ = try RawHTTPConnection(port: server.port) }
    }

    @Test func serverRefusesConnectionsUntilToldToListen() async throws {
        let server = try TestServer(listening: false)
        defer { server.shutdown() }
        server.setRoute("/file", Route(body: .pattern(count: 100, seed: 19)))
        #expect(server.port > 0)
        #expect(server.url("/file").port == server.port)

        #expect(throws: POSIXError(.ECONNREFUSED)) { _ = try RawHTTPConnection(port: server.port) }
        await #expect(throws: (any Error).self) {
            _ = try await ServerProbe.fetch(server.url("/file"))
        }
        #expect(throws: POSIXError(.ECONNREFUSED)) { _ = try RawHTTPConnection(port: server.port) }
        #expect(ServerProbe.bindError(port: server.port) == EADDRINUSE)  // the port stays reserved
        #expect(server.requests().isEmpty)

        try server.startListening()
        let response = try ServerProbe.get(server)
        #expect(response.status == 200)
        #expect(response.body == Body.pattern(count: 100, seed: 19).bytes(0..<100))
        try server.startListening()  // listening already: nothing changes
        let (data, _) = try await ServerProbe.fetch(server.url("/file"))
        #expect(data.count == 100)
        #expect(server.requests().map(\.status) == [200, 200])
    }

    @Test func serverThatNeverListenedShutsDown() async throws {
        let server = try TestServer(listening: false)
        let waiting = Task { await server.waitForRequests(1) }
        let start = ContinuousClock.now
        server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(await waiting.value == false)
        // After shutdown: nothing happens (the port is free again, so another test's server
        // may have it by now; connecting to it would prove nothing).
        try server.startListening()
        server.shutdown()  // idempotent
    }

    @Test func manyServersRunInParallel() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seed in 0..<8 {
                group.addTask {
                    let body = Body.pattern(count: 200_000, seed: UInt64(seed))
                    let server = try ServerProbe.server(serving: Route(body: body))
                    defer { server.shutdown() }
                    let response = try ServerProbe.get(server)
                    expectSameBytes(response.body, body.bytes(0..<200_000))
                }
            }
            try await group.waitForAll()
        }
    }

    // MARK: Bodies

    @Test func patternIsDeterministicAndPositionDependent() {
        let body = Body.pattern(count: 1 << 20, seed: 11)
        #expect(body.count == 1 << 20)
        #expect(body.bytes(1000..<5000) == Body.pattern(count: 1 << 20, seed: 11).bytes(1000..<5000))
        #expect(body.bytes(0..<4096) != Body.pattern(count: 1 << 20, seed: 12).bytes(0..<4096))
        // No two 16 KiB blocks are alike, even a whole period apart.
        let blocks = (0..<32).map { body.bytes(Int64($0) * 16384..<Int64($0 + 1) * 16384) }
        #expect(Set(blocks).count == 32)
        #expect(body.bytes(0..<16) != body.bytes(65521..<(65521 + 16)))

        var streamed = Data()
        body.write(100..<700_000) { streamed.append(contentsOf: $0) }
        expectSameBytes(streamed, body.bytes(100..<700_000))
    }

    @Test func firstMismatchFindsDifferences() throws {
        let body = Body.pattern(count: 3_000_000, seed: 8)
        let good = body.bytes(0..<body.count)
        func mismatch(_ data: Data) throws -> Int64? {
            let file = try ServerProbe.temporaryFile(data)
            defer { try? FileManager.default.removeItem(at: file) }
            return try body.firstMismatch(inFileAt: file)
        }

        #expect(try mismatch(good) == nil)
        var flipped = good
        flipped[2_500_001] ^= 0x01
        #expect(try mismatch(flipped) == 2_500_001)
        #expect(try mismatch(good.prefix(1_234_567)) == 1_234_567)
        #expect(try mismatch(good + Data([0])) == 3_000_000)
        #expect(try mismatch(Data()) == 0)

        // Swapping two 16 KiB blocks is caught at the first of them.
        var swapped = good
        let a = 16384 * 10
        let b = 16384 * 11
        swapped.replaceSubrange(a..<(a + 16384), with: good[b..<(b + 16384)])
        swapped.replaceSubrange(b..<(b + 16384), with: good[a..<(a + 16384)])
        #expect(try mismatch(swapped) == Int64(a))

        // A body given as data works the same way.
        let small = Body.data(Data("abcdef".utf8))
        let file = try ServerProbe.temporaryFile(Data("abcxef".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try small.firstMismatch(inFileAt: file) == 3)
        #expect(throws: (any Error).self) {
            try small.firstMismatch(inFileAt: URL(fileURLWithPath: "/nonexistent/file"))
        }
    }
}

/// A value shared with a closure that another thread runs.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // Safe: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
