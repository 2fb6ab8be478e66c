@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Groups with a concurrency limit and a priority of their own, set when the group is made and
/// changed while it downloads, under the manager's overall and per-host limits.
@Suite(.timeLimit(.minutes(3)))
struct GroupLimitsTests {
    /// Serves `count` files on `server` under `prefix`, the first `held` of them held after 1,000
    /// bytes until released; returns their requests and bodies.
    static func serve(
        _ count: Int, on server: TestServer, prefix: String, seed: UInt64, held: Int, to directory: URL
    ) -> [(DownloadRequest, Body)] {
        (0..<count).map { index in
            let body = Body.pattern(count: 60_000, seed: seed + UInt64(index))
            var route = Route(body: body)
            route.writeSize = 8192
            route.bytesPerSecond = 4_000_000
            if index < held { route.faults = [.holdAfter(1000)] }
            server.setRoute("/\(prefix)\(index).bin", route)
            return (DownloadRequest(url: server.url("/\(prefix)\(index).bin"), to: .directory(directory)), body)
        }
    }

    /// An album over two hosts with a limit of 3, a season on one host with a limit of 2, and
    /// ungrouped downloads: the servers never see more of a group's requests at once than its
    /// limit, nor more than the per-host limit from one host, and the limits are reached.
    @Test func manyDownloadsKeepToTheirGroupsLimitsAndTheManagers() async throws {
        let albumGauge = InFlightGauge()
        let albumHosts = try (0..<2).map { _ in try TestServer(sharedGauge: albumGauge) }
        let seasonHost = try TestServer()
        let otherHost = try TestServer()
        defer { (albumHosts + [seasonHost, otherHost]).forEach { $0.shutdown() } }
        try await withFixture({
            $0.scheduling.maximumConcurrentDownloads = 7
            $0.scheduling.maximumConcurrentDownloadsPerHost = 2
        }) { fixture in
            let album =
                Self.serve(20, on: albumHosts[0], prefix: "a", seed: 100, held: 2, to: fixture.file("album"))
                + Self.serve(20, on: albumHosts[1], prefix: "b", seed: 200, held: 2, to: fixture.file("album"))
            let season = Self.serve(30, on: seasonHost, prefix: "s", seed: 300, held: 2, to: fixture.file("season"))
            let others = Self.serve(30, on: otherHost, prefix: "o", seed: 400, held: 2, to: fixture.file("others"))
            let albumGroup = await fixture.manager.downloadGroup(album.map(\.0), maximumConcurrentDownloads: 3)
            let seasonGroup = await fixture.manager.downloadGroup(season.map(\.0), maximumConcurrentDownloads: 1)
            #expect(seasonGroup.maximumConcurrentDownloads == 1)
            await seasonGroup.setMaximumConcurrentDownloads(2)
            #expect(seasonGroup.maximumConcurrentDownloads == 2)
            var downloads: [Download] = []
            for (request, _) in others {
                downloads.append(await fixture.manager.download(request))
            }
            // Reached, not just kept: the held files fill the album's 3, the season's 2 and the
            // other host's 2.
            await albumGauge.waitForInFlight(3)
            await seasonHost.waitForRequests(2)
            await otherHost.waitForRequests(2)
            for (host, prefix) in zip(albumHosts + [seasonHost, otherHost], ["a", "b", "s", "o"]) {
                for index in 0..<2 { host.release("/\(prefix)\(index).bin") }
            }
            let all = zip(albumGroup.downloads + seasonGroup.downloads + downloads, album + season + others)
            for (download, (_, body)) in all {
                try body.expectMatches(try await download.fileURL)
            }
            #expect(albumGauge.maximum == 3)
            #expect(albumHosts.allSatisfy { $0.maximumConcurrentResponses <= 2 })
            #expect(seasonHost.maximumConcurrentResponses == 2)
            #expect(otherHost.maximumConcurrentResponses == 2)
            #expect((albumHosts + [seasonHost, otherHost]).map { $0.requests().count }.reduce(0, +) == 100)
        }
    }

    /// One slot: a group's downloads stand in the queue at the group's priority (with the other
    /// downloads of that priority, then by their own), and a group's priority changed while it
    /// waits moves its downloads.
    @Test func aGroupsPriorityOrdersItsDownloadsInTheQueue() async throws {
        try await withFixture({ $0.scheduling.maximumConcurrentDownloads = 1 }) { fixture in
            let holding = fixture.serve("/holding", .pattern(count: 10_000)) { $0.faults = [.holdAfter(100)] }
            let first = await fixture.manager.download(from: holding, to: .directory(fixture.directory))
            await first.waitForBytes(100)
            func request(_ name: String, _ priority: DownloadRequest.Priority = .normal) -> DownloadRequest {
                let url = fixture.serve("/\(name)", .pattern(count: 1000))
                return DownloadRequest(URLRequest(url: url), to: .directory(fixture.directory), priority: priority)
            }
            let plain = [
                await fixture.manager.download(request("u0")), await fixture.manager.download(request("u1", .high)),
            ]
            let late = await fixture.manager.downloadGroup([request("l0", .high), request("l1")], priority: .low)
            let urgent = await fixture.manager.downloadGroup([request("g0"), request("g1", .high)], priority: .high)
            let raised = await fixture.manager.downloadGroup([request("r0", .low)], priority: .low)
            #expect(urgent.priority == .high)
            await raised.setPriority(.high)
            #expect(raised.priority == .high)

            await first.pause()
            for download in plain + late.downloads + urgent.downloads + raised.downloads {
                _ = try await download.fileURL
            }
            let order = fixture.server.requests().map(\.path).filter { $0 != "/holding" }
            #expect(order == ["/u1", "/g1", "/g0", "/r0", "/u0", "/l0", "/l1"])
        }
    }

    /// A group's limit lowered while its downloads run sends the newest back to the queue (they
    /// keep their bytes); 0 holds the group while the others go on.
    @Test func loweringAGroupsLimitWhileItRunsRequeuesItsDownloads() async throws {
        try await withFixture({ $0.scheduling.maximumConcurrentDownloadsPerHost = 10 }) { fixture in
            let files = Self.serve(4, on: fixture.server, prefix: "f", seed: 900, held: 4, to: fixture.directory)
            let group = await fixture.manager.downloadGroup(files.map(\.0), maximumConcurrentDownloads: 3)
            await fixture.server.waitForRequests(3)
            await group.setMaximumConcurrentDownloads(0)
            for download in group.downloads {
                await download.waitForEvent { $0 == .queued && download.state == .queued }
            }
            let other = fixture.serve("/other", .pattern(count: 1000))
            _ = try await fixture.manager.download(from: other, to: .directory(fixture.directory)).fileURL
            #expect(group.downloads.allSatisfy { $0.state == .queued })

            for index in 0..<4 { fixture.server.release("/f\(index).bin") }
            await group.setMaximumConcurrentDownloads(nil)
            for (download, (_, body)) in zip(group.downloads, files) {
                try body.expectMatches(try await download.fileURL)
            }
        }
    }
}
