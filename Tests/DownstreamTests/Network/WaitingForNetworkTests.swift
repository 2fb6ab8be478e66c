@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Without any network, a download waits for it instead of spending its retries, continues from
/// its bytes when it is back, and fails with a typed error after the longest wait.
@Suite(.timeLimit(.minutes(2)))
struct WaitingForNetworkTests {
    static let body = Body.pattern(count: 1_000_000, seed: 930)

    /// A network the test turns off and on, probed on `clock`.
    final class Network: Sendable {
        let isUp = Locked(false)
        let monitor: ProbingNetworkMonitor

        init(clock: ManualClock) {
            monitor = ProbingNetworkMonitor(clock: clock) { [isUp] _, _ in isUp.value }
        }

        func comeBack() {
            isUp.withLock { $0 = true }
            monitor.networkChanged()
        }
    }

    /// A server whose port refuses connections (no network to it) until it listens, serving
    /// ``body`` at `/file.bin` with a strong ETag.
    static func offlineServer() throws -> TestServer {
        let server = try TestServer(listening: false)
        var route = Route(body: body)
        route.etag = "\"\(StableHash.hex("/file.bin"))\""
        server.setRoute("/file.bin", route)
        return server
    }

    @Test func aDownloadWaitsForTheNetworkThenContinuesFromItsBytes() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        try await withFixture(startsManager: false) { fixture in
            let server = try Self.offlineServer()
            defer { server.shutdown() }
            let url = server.url("/file.bin")
            try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("file.bin")), partial: Self.body, length: 300_000)
            let manager = try fixture.makeManager {
                $0.connectivity.monitor = network.monitor
                $0.run(on: clock)
                $0.retry = .init()  // Retries are not spent waiting for the network.
            }
            let download = try #require(await manager.downloads.first)
            await download.resume()
            let waiting = await download.waitForEvent { $0.state == .waitingForNetwork }
            #expect(waiting?.error?.urlErrorCode == .cannotConnectToHost)
            #expect(download.state == .waitingForNetwork)

            try server.startListening()
            network.comeBack()
            try Self.body.expectMatches(try await download.fileURL)
            let requests = server.requests("/file.bin")
            #expect(requests.map(\.rangeStart) == [fixture.rangeStart(continuing: 300_000)])
            let events = await download.allEvents()
            #expect(!events.contains { $0.retryDelay != nil }, "a retry was spent: \(events)")
        }
    }

    @Test func aDownloadFailsAfterTheLongestWaitAndKeepsItsBytes() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        try await withFixture(startsManager: false) { fixture in
            let server = try Self.offlineServer()
            defer { server.shutdown() }
            try fixture.leaveInterruptedDownload(
                of: server.url("/file.bin"), to: .file(fixture.file("file.bin")), partial: Self.body, length: 300_000)
            let manager = try fixture.makeManager {
                $0.connectivity.monitor = network.monitor
                $0.connectivity.maximumWait = .seconds(600)
                $0.run(on: clock)
            }
            let download = try #require(await manager.downloads.first)
            var sleeps = clock.sleeps.makeAsyncIterator()
            await download.resume()
            // The wait's limit and the monitor's first probe interval, in either order.
            var started: Set<Duration> = []
            while started != [.seconds(600), .seconds(1)] {
                started.insert(try #require(await sleeps.next()))
            }
            clock.advance(by: .seconds(600))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .networkUnavailable)
            #expect(error.urlErrorCode == .cannotConnectToHost)
            #expect(error.isResumable)
            #expect(fileLength(fixture.file("file.bin.partial")) == 300_000)
            #expect(server.requests().isEmpty)
        }
    }

    @Test func aPausedDownloadStopsWaitingAndAResumeTriesAtOnce() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        try await withFixture({
            $0.connectivity.monitor = network.monitor
            $0.run(on: clock)
        }) { fixture in
            let server = try Self.offlineServer()
            defer { server.shutdown() }
            let download = await fixture.manager.download(from: server.url("/file.bin"), to: .file(fixture.file("f")))
            await download.waitForEvent { $0.state == .waitingForNetwork }
            await download.pause()
            #expect(download.state == .paused)
            network.comeBack()
            try server.startListening()
            #expect(download.state == .paused)
            await download.resume()
            try Self.body.expectMatches(try await download.fileURL)
        }
    }

    /// When the monitor says the network is there, a refused connection is the server's problem:
    /// the retry policy decides, as before.
    @Test func aRefusedConnectionWithTheNetworkUpIsAnOrdinaryFailure() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        network.comeBack()
        try await withFixture({
            $0.connectivity.monitor = network.monitor
            $0.run(on: clock)
        }) { fixture in
            let server = try Self.offlineServer()
            defer { server.shutdown() }
            let download = await fixture.manager.download(from: server.url("/file.bin"), to: .file(fixture.file("f")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.urlErrorCode == .cannotConnectToHost)
            #expect(!(await download.allEvents()).contains { $0.state == .waitingForNetwork })
        }
    }
}
