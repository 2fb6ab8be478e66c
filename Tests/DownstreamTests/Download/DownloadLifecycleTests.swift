@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2)))
struct DownloadLifecycleTests {
    @Test func downloadsAFileByteForByte() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 1)
            let url = fixture.serve("/file.bin", body)
            let destination = fixture.file("out/file.bin")

            let download = await fixture.manager.download(from: url, to: .file(destination))
            let file = try await download.fileURL

            #expect(file == destination)
            try body.expectMatches(file)
            #expect(download.state == .completed)
            #expect(await download.allEvents() == [.queued, .running, .completed(destination)])
            #expect(download.currentProgress.bytesReceived == body.count)
            #expect(download.currentProgress.fractionCompleted == 1)
            // The partial file and the record are gone: only the file is left.
            #expect(fixture.listing(fixture.file("out")) == ["file.bin"])
            #expect(fixture.storedRecords().isEmpty)
            let requests = fixture.server.requests("/file.bin")
            // One request, for the first range (the file is smaller than a range).
            #expect(requests.count == 1)
            #expect(requests.first?.header("Range") == "bytes=0-\((64 << 20) - 1)")
            #expect(requests.first?.status == 206)
            #expect(requests.first?.header("Accept-Encoding") == "identity")
        }
    }

    @Test func progressIsMulticastLatestFirstAndEndsWithTheDownload() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 2)
            let url = fixture.serve("/p.bin", body) { $0.faults = [.holdAfter(500_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("p.bin")))

            let first = Task { await Array(download.progress) }
            let second = Task { await Array(download.progress) }
            await download.waitForBytes(500_000)
            // A late subscriber first gets the latest value.
            var late = download.progress.makeAsyncIterator()
            let latest = await late.next()
            #expect(latest?.bytesReceived == 500_000)
            #expect(latest?.expectedBytes == body.count)
            fixture.server.release("/p.bin")

            _ = try await download.fileURL
            for values in [await first.value, await second.value] {
                #expect(values.last?.bytesReceived == body.count)
                #expect(values.last?.fractionCompleted == 1)
                #expect(values.map(\.bytesReceived) == values.map(\.bytesReceived).sorted())
            }
            // A subscription after the end gets the final value and ends.
            #expect(await Array(download.progress).map(\.bytesReceived) == [body.count])
        }
    }

    @Test func progressIsCoalescedToTheConfiguredInterval() async throws {
        try await withFixture({ $0.progress.interval = .milliseconds(100) }) { fixture in
            // About 1.2 seconds of transfer in small writes: thousands of chunks.
            let body = Body.pattern(count: 1_200_000, seed: 8)
            let url = fixture.serve("/slow.bin", body) {
                $0.bytesPerSecond = 1_000_000
                $0.writeSize = 4096
            }
            // From before the download exists: every value it publishes falls in the time measured
            // (the subscription gets the latest value, which a loaded machine may have published
            // before the subscription started).
            let clock = ContinuousClock()
            let start = clock.now
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("slow.bin")))
            let values = await Array(download.progress)
            let elapsed = start.duration(to: clock.now)
            // At most one value per interval, plus the first, the trailing one and the final one.
            let allowed = Int(elapsed / .milliseconds(100)) + 3
            #expect(values.count <= allowed, "\(values.count) values in \(elapsed)")
            #expect(values.count >= 3)
            #expect(values.last?.bytesReceived == body.count)
            #expect(values.last?.bytesPerSecond == 0)
        }
    }

    @Test func aRunningDownloadHasASpeedAndATimeRemaining() async throws {
        let moving = FirstProgress { $0.bytesPerSecond > 0 && $0.bytesReceived < 2_000_000 }
        try await withFixture({
            $0.progress.interval = .milliseconds(50)
            $0.eventMonitors = [moving]
        }) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 9)
            // A slow server: the file moves for two seconds; the monitor sees every value.
            let url = fixture.serve("/speed.bin", body) { $0.bytesPerSecond = 1_000_000 }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("speed.bin")))
            let progress = try #require(await moving.value())
            let remaining = try #require(progress.estimatedTimeRemaining)
            #expect(remaining > .zero)
            _ = try await download.fileURL
            #expect(download.currentProgress.bytesPerSecond == 0)
            #expect(download.currentProgress.estimatedTimeRemaining == nil)
        }
    }

    /// The server stops sending: the speed its watchers see falls to 0, with no time remaining,
    /// while the download still runs (it was the last speed, for as long as the stall lasted).
    @Test func aStalledDownloadsSpeedFallsToZeroWhileItRuns() async throws {
        try await withFixture({ $0.progress.interval = .milliseconds(50) }) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 10)
            let url = fixture.serve("/stall.bin", body) { $0.faults = [.holdAfter(1_000_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("stall.bin")))
            var stalled: DownloadProgress?
            for await progress in download.progress
            where progress.bytesReceived == 1_000_000 && progress.bytesPerSecond == 0 {
                stalled = progress
                break
            }
            #expect(stalled?.estimatedTimeRemaining == nil)
            #expect(download.state == .running)
            fixture.server.release("/stall.bin")
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func pauseKeepsTheBytesAndResumeAsksForTheRest() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 4_000_000, seed: 3)
            let url = fixture.serve("/r.bin", body) { $0.faults = [.holdAfter(1_000_000)] }
            let destination = fixture.file("r.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))

            await download.waitForBytes(1_000_000)
            await download.pause()
            #expect(download.state == .paused)
            let location = PartialLocation(url: url, destination: .file(destination), partialsDirectory: nil)
            #expect(fileLength(location.partialURL) == 1_000_000)
            let record = try #require(fixture.storedRecord(download.id))
            #expect(record.resume.durableLength == 1_000_000)
            #expect(record.intent == .paused)
            #expect(!FileManager.default.fileExists(atPath: destination.path))

            await download.resume()
            try body.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/r.bin")
            #expect(requests.count == 2)
            #expect(requests[1].rangeStart == fixture.rangeStart(continuing: 1_000_000))
            #expect(requests[1].rangeEnd == nil)
            #expect(requests[1].header("If-Range") == "\"\(StableHash.hex("/r.bin"))\"")
            #expect(requests[1].status == 206)
            #expect(requests[1].bodyBytesSent == body.count - fixture.rangeStart(continuing: 1_000_000))
            let events = await download.allEvents()
            // Resumed, it waits in the queue for its turn, which comes at once.
            #expect(
                events == [
                    .queued, .running, .paused, .queued, .running, .resumed(at: 1_000_000), .completed(destination),
                ])
        }
    }

    @Test func cancelDiscardsTheBytesByDefault() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/c.bin", .pattern(count: 2_000_000)) { $0.faults = [.holdAfter(300_000)] }
            let destination = fixture.file("c.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))
            await download.waitForBytes(300_000)

            await download.cancel()

            #expect(download.state == .cancelled)
            #expect(fixture.storedRecords().isEmpty)
            await #expect(throws: DownloadError.cancelled) { try await download.fileURL }
            #expect(fixture.listing().isEmpty)
            // Cancelled is final.
            await download.resume()
            #expect(download.state == .cancelled)
        }
    }

    @Test func cancelKeepingPartialDataLetsANewDownloadContinue() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 4)
            // The second request holds too, so that its progress is read before it moves on.
            let url = fixture.serve("/k.bin", body) { $0.faults = [.holdAfter(700_000), .holdAfter(0)] }
            let destination = fixture.file("k.bin")
            let first = await fixture.manager.download(from: url, to: .file(destination))
            await first.waitForBytes(700_000)

            await first.cancel(keepingPartialData: true)
            #expect(fixture.listing() == ["k.bin.partial"])
            #expect(fixture.storedRecord(first.id)?.intent == .kept)

            let second = await fixture.manager.download(from: url, to: .file(destination))
            #expect(second.id != first.id)
            #expect(second.currentProgress.bytesReceived == 700_000)
            // The kept record became the new download's.
            #expect(fixture.storedRecord(first.id) == nil)
            #expect(fixture.storedRecord(second.id)?.resume.durableLength == 700_000)
            fixture.server.release("/k.bin")
            try body.expectMatches(try await second.fileURL)
            #expect(fixture.storedRecords().isEmpty)
            #expect(
                fixture.server.requests("/k.bin").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 700_000)])
        }
    }

    @Test func aCancelledWaiterStopsWaitingButTheDownloadGoesOn() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 5)
            let url = fixture.serve("/w.bin", body) { $0.faults = [.holdAfter(100_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("w.bin")))
            let waiter = Task { try await download.fileURL }
            await download.waitForBytes(100_000)

            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(download.state == .running)

            fixture.server.release("/w.bin")
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func cancellingTheTaskOfDownloadFileCancelsButKeepsTheBytes() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 6)
            let url = fixture.serve("/t.bin", body) { $0.faults = [.holdAfter(1_200_000)] }
            let destination = fixture.file("t.bin")
            let manager: DownloadManager = fixture.manager
            let task = Task { try await manager.downloadFile(from: url, to: .file(destination)) }
            await fixture.server.waitForRequests(1, path: "/t.bin")
            let download = try #require(await manager.downloads.first)
            await download.waitForBytes(1_200_000)

            task.cancel()
            await #expect(throws: DownloadError.cancelled) { try await task.value }
            #expect(download.state == .cancelled)
            #expect(fixture.listing() == ["t.bin.partial"])

            let file = try await manager.downloadFile(from: url, to: .file(destination))
            try body.expectMatches(file)
            #expect(
                fixture.server.requests("/t.bin").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 1_200_000)])
        }
    }

    @Test func controlsCalledConcurrentlyInAnyOrderLeaveAConsistentDownload() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 6_000_000, seed: 7)
            let url = fixture.serve("/s.bin", body) { $0.bytesPerSecond = 40_000_000 }
            let destination = fixture.file("s.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))

            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var generator = SystemRandomNumberGenerator()
                        for step in 0..<25 {
                            switch (worker + step + Int.random(in: 0..<3, using: &generator)) % 3 {
                            case 0: await download.pause()
                            case 1: await download.resume()
                            default: _ = download.state
                            }
                        }
                    }
                }
            }
            await download.resume()
            let file = try await download.fileURL
            try body.expectMatches(file)
            // Every request after the first continued exactly where the file ended.
            let requests = fixture.server.requests("/s.bin")
            var onDisk: Int64 = 0
            for request in requests {
                #expect(request.rangeStart ?? 0 <= onDisk)
                if request.status == 206 || request.status == 200 {
                    onDisk = (request.rangeStart ?? 0) + request.bodyBytesSent
                }
            }
        }
    }
}
