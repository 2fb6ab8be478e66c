@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Many downloads through one manager, against servers that act as several hosts.
@Suite(.timeLimit(.minutes(3)))
struct SchedulingTests {
    @Test func twoHundredDownloadsKeepToTheLimitsOverallAndPerHost() async throws {
        let gauge = InFlightGauge()
        let hosts = try (0..<4).map { _ in try TestServer(sharedGauge: gauge) }
        defer { hosts.forEach { $0.shutdown() } }
        try await withFixture({
            $0.scheduling.maximumConcurrentDownloads = 8
            $0.scheduling.maximumConcurrentDownloadsPerHost = 3
        }) { fixture in
            var downloads: [(Download, Body)] = []
            for index in 0..<200 {
                let body = Body.pattern(count: 40_000, seed: 500 + UInt64(index))
                // Most files on one host, so that its limit is what holds them back.
                let hostIndex = index % 10 < 6 ? 0 : 1 + index % 3
                let host = hosts[hostIndex]
                var route = Route(body: body)
                route.bytesPerSecond = 2_000_000
                route.writeSize = 8192
                // The first ones wait, so that the limits can be seen reached.
                if index < 30 { route.faults = [.holdAfter(1000)] }
                host.setRoute("/file\(index).bin", route)
                let download = await fixture.manager.download(
                    from: host.url("/file\(index).bin"), to: .directory(fixture.file("host\(hostIndex)")))
                downloads.append((download, body))
            }
            // The limits are reached, not just kept: eight wait at once, three of them on the busy host.
            await gauge.waitForInFlight(8)
            #expect(hosts[0].maximumConcurrentResponses == 3)
            for host in hosts {
                for path in (0..<30).map({ "/file\($0).bin" }) {
                    host.release(path)
                }
            }
            for (download, body) in downloads {
                try body.expectMatches(try await download.fileURL)
            }
            #expect(gauge.maximum <= 8, "\(gauge.maximum) responses in flight at once")
            #expect(hosts.allSatisfy { $0.maximumConcurrentResponses <= 3 })
            #expect(hosts.map { $0.requests().count }.reduce(0, +) == 200)
        }
    }

    @Test func theNextDownloadStartsWhileTheLastOneChecksAndPlacesItsFile() async throws {
        try await withFixture({ $0.scheduling.maximumConcurrentDownloads = 1 }) { fixture in
            let first = fixture.serve("/first.bin", .pattern(count: 10_000, seed: 140))
            let second = fixture.serve("/second.bin", .pattern(count: 10_000, seed: 141))
            let checking = Latch()
            let checked = Latch()
            var request = DownloadRequest(url: first, to: .file(fixture.file("first.bin")))
            // The first download's check waits until the second one's request came.
            request.checks = [
                ResponseCheck { _, _ in
                    checking.open()
                    await checked.wait()
                }
            ]
            let firstDownload = await fixture.manager.download(request)
            let secondDownload = await fixture.manager.download(from: second, to: .file(fixture.file("second.bin")))
            await checking.wait()
            // Its transfer is over: the limit of one lets the next one go while it checks.
            #expect(await fixture.server.waitForRequests(1, path: "/second.bin", timeout: .seconds(20)))
            #expect(firstDownload.state != .completed)
            checked.open()
            _ = try await firstDownload.fileURL
            _ = try await secondDownload.fileURL
        }
    }

    @Test func higherPrioritiesGoFirstAndPausedDownloadsGiveTheirSlotUp() async throws {
        try await withFixture({ $0.scheduling.maximumConcurrentDownloads = 1 }) { fixture in
            let holding = fixture.serve("/holding", .pattern(count: 10_000)) { $0.faults = [.holdAfter(100)] }
            let first = await fixture.manager.download(from: holding, to: .directory(fixture.directory))
            await first.waitForBytes(100)
            var queued: [Download] = []
            for (index, priority) in [DownloadRequest.Priority.low, .normal, .high, .normal].enumerated() {
                let url = fixture.serve("/q\(index)", .pattern(count: 1000))
                queued.append(
                    await fixture.manager.download(
                        DownloadRequest(URLRequest(url: url), to: .directory(fixture.directory), priority: priority)))
            }
            #expect(queued.allSatisfy { $0.state == .queued })
            // Reprioritised while queued: the low one becomes high, and keeps its place in time,
            // before the high one queued after it.
            await queued[0].setPriority(.high)

            // Pausing the running download frees the slot for the queue, best first.
            await first.pause()
            for download in queued { _ = try await download.fileURL }
            let order = fixture.server.requests().map(\.path).filter { $0.hasPrefix("/q") }
            #expect(order == ["/q0", "/q2", "/q1", "/q3"])
            #expect(first.state == .paused)
        }
    }

    @Test func changingTheLimitsTakesEffectAtOnce() async throws {
        try await withFixture({
            $0.scheduling.maximumConcurrentDownloads = 1
            $0.scheduling.maximumConcurrentDownloadsPerHost = 10
        }) { fixture in
            var downloads: [Download] = []
            var bodies: [Body] = []
            for index in 0..<4 {
                let body = Body.pattern(count: 500_000, seed: 600 + UInt64(index))
                let url = fixture.serve("/limit\(index)", body) { $0.faults = [.holdAfter(1000)] }
                bodies.append(body)
                downloads.append(await fixture.manager.download(from: url, to: .directory(fixture.directory)))
            }
            await fixture.manager.setLimits(maximumConcurrentDownloads: 3)
            await fixture.server.waitForRequests(3)
            #expect(await fixture.manager.schedulingLimits.maximumConcurrentDownloads == 3)
            #expect(downloads.filter { $0.state == .running }.count == 3)

            // Lowering the limit stops the newest running one; it goes back to the queue.
            await fixture.manager.setLimits(maximumConcurrentDownloads: 2)
            var queuedEvents = 0
            for await event in downloads[2].events where event == .queued {
                queuedEvents += 1
                if queuedEvents == 2 { break }
            }
            #expect(downloads[2].state == .queued)
            for index in 0..<4 { fixture.server.release("/limit\(index)") }
            for (download, body) in zip(downloads, bodies) {
                try body.expectMatches(try await download.fileURL)
            }
        }
    }
}
