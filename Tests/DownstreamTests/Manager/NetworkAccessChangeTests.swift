@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A "Wi-Fi only" switch flipped while downloads run: a download on a network its manager may no
/// longer use waits for an allowed one, keeps its bytes and spends no retry, and continues from
/// them; a request's own setting wins over the manager's.
@Suite(.timeLimit(.minutes(2)))
struct NetworkAccessChangeTests {
    static let body = Body.pattern(count: 1_000_000, seed: 4404)

    /// A network the test makes expensive (a personal hotspot, say) or not, probed on `clock`.
    final class Network: Sendable {
        let isExpensive = Locked(true)
        let monitor: ProbingNetworkMonitor

        init(clock: ManualClock) {
            monitor = ProbingNetworkMonitor(clock: clock) { [isExpensive] _, policy in
                policy != .expensive || !isExpensive.value
            }
        }

        func becomeInexpensive() {
            isExpensive.withLock { $0 = false }
            monitor.networkChanged()
        }
    }

    static func configure(_ configuration: inout DownloadManager.Configuration, network: Network, clock: ManualClock) {
        configuration.connectivity.monitor = network.monitor
        configuration.run(on: clock)
        configuration.retry = .init()  // Retries are not spent waiting for an allowed network.
    }

    @Test func aRunningDownloadWaitsWhenItsNetworkIsForbiddenAndContinuesFromItsBytes() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        try await withFixture({ Self.configure(&$0, network: network, clock: clock) }) { fixture in
            let url = fixture.serve("/file.bin", Self.body) { $0.faults = [.holdAfter(300_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("file.bin")))
            await download.waitForBytes(300_000)

            await fixture.manager.setNetworkAccess(NetworkAccess(allowsExpensive: false))
            #expect(fixture.manager.networkAccess == NetworkAccess(allowsExpensive: false))
            let waiting = await download.waitForEvent { $0.state == .waitingForNetwork }
            #expect(waiting?.error?.networkUnavailableReason == .expensive)
            #expect(download.state == .waitingForNetwork)
            let kept = try #require(fileLength(download.location.partialURL))
            #expect(kept == 300_000)
            fixture.server.release("/file.bin")

            await fixture.manager.setNetworkAccess(NetworkAccess())
            try Self.body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/file.bin")
            #expect(requests.map(\.rangeStart) == [0, fixture.rangeStart(continuing: kept)])
            let events = await download.allEvents()
            #expect(!events.contains { $0.retryDelay != nil }, "a retry was spent: \(events)")
        }
    }

    @Test func aRequestThatAllowsExpensiveNetworksKeepsRunning() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        try await withFixture({ Self.configure(&$0, network: network, clock: clock) }) { fixture in
            let url = fixture.serve("/file.bin", Self.body) { $0.faults = [.holdAfter(300_000)] }
            var request = DownloadRequest(url: url, to: .file(fixture.file("file.bin")))
            request.networkAccess = NetworkAccess(allowsExpensive: true)
            let download = await fixture.manager.download(request)
            await download.waitForBytes(300_000)

            await fixture.manager.setNetworkAccess(NetworkAccess(allowsCellular: false, allowsExpensive: false))
            fixture.server.release("/file.bin")
            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/file.bin").count == 1)
            #expect(!(await download.allEvents()).contains { $0.state == .waitingForNetwork })
        }
    }

    /// The configuration's access applies from the first request: a download queued on a
    /// forbidden network sends nothing until the network is one it may use.
    @Test func aQueuedDownloadWaitsForAnAllowedNetworkBeforeItsFirstRequest() async throws {
        let clock = ManualClock()
        let network = Network(clock: clock)
        try await withFixture({
            Self.configure(&$0, network: network, clock: clock)
            $0.network.access.allowsExpensive = false
        }) { fixture in
            let url = fixture.serve("/file.bin", Self.body)
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("file.bin")))
            let waiting = await download.waitForEvent { $0.state == .waitingForNetwork }
            #expect(waiting?.error?.networkUnavailableReason == .expensive)
            #expect(fixture.server.requests().isEmpty)

            network.becomeInexpensive()
            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/file.bin").map(\.rangeStart) == [0])
        }
    }
}
