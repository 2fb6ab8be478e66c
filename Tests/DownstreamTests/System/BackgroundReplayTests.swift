@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Recorded background-session events replayed through the real manager, its router and its
/// downloads: what a relaunched app sees.
@Suite(.timeLimit(.minutes(2)))
struct BackgroundReplayTests {
    static let sessionIdentifier = "com.example.app.background"

    /// A manager of the fixture's store with a background session replaced by `replay` (which
    /// needs no fallback for platforms without background sessions).
    func makeManager(
        _ fixture: Fixture, replay: BackgroundSessionReplay,
        _ configure: (inout DownloadManager.Configuration) -> Void = { _ in }
    ) throws -> DownloadManager {
        try fixture.makeManager {
            $0.background = .init(sessionIdentifier: Self.sessionIdentifier)
            replay.install(in: &$0)
            configure(&$0)
        }
    }

    @Test func aRelaunchForTasksThatFinishedWhileTheAppWasNotRunning() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 200_000, seed: 400).bytes(0..<200_000))
            let url = URL(string: "https://example.com/episodes/12.mp3")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let handled = Locked<[String]>([])
            manager.addCompletionHandler { _, file in
                handled.withLock { $0.append("completion handler: \(file.lastPathComponent)") }
            }
            let (calls, call) = AsyncStream<String>.makeStream()
            // The system hands over its completion handler first, then replays the events.
            #expect(
                await manager.handleEventsForBackgroundURLSession(identifier: Self.sessionIdentifier) {
                    MainActor.assertIsolated()
                    let file = fixture.file("12.mp3")
                    let state =
                        "file: \(FileManager.default.fileExists(atPath: file.path)), "
                        + "record: \(fixture.storedRecord(record.id) != nil), handlers: \(handled.value.count)"
                    call.yield(state)
                })
            let task = replay.addTask(taskIdentifier: 7, taskDescription: record.id.description, url: url)
            try replay.finish(task, body: body, headers: ["ETag": "\"e12\""])
            replay.finishEvents()

            var iterator = calls.makeAsyncIterator()
            // Called once everything is done: file in place, record gone, handlers run.
            #expect(await iterator.next() == "file: true, record: false, handlers: 1")
            let download = try #require(await manager.download(withID: record.id))
            #expect(download.state == .completed)
            try Body.data(body).expectMatches(fixture.file("12.mp3"))
            #expect(handled.value == ["completion handler: 12.mp3"])
            #expect(replay.startedTasks.isEmpty)
            // Repeated and late events change nothing, and call nothing twice.
            replay.complete(task)
            try replay.finish(task, body: body)
            replay.finishEvents()
            #expect(fixture.listing() == ["12.mp3"])
            #expect(await manager.unclaimedTasks.isEmpty)
        }
    }

    @Test func aRelaunchAdoptsRunningTasksAndNeverStartsASecondOne() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 100_000, seed: 401).bytes(0..<100_000))
            let url = URL(string: "https://example.com/maps/region.zip")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            // The session is slow to list its tasks.
            let replay = BackgroundSessionReplay(holdsTaskList: true)
            let task = replay.addTask(taskIdentifier: 3, taskDescription: record.id.description, url: url)
            let manager = try makeManager(fixture, replay: replay)
            let download = try #require(await manager.downloads.first)
            #expect(download.state == .paused)

            // The app resumes at once; the download waits until the session's tasks are known.
            let resumed = Task { await download.resume() }
            replay.releaseTaskList()
            await resumed.value
            #expect(download.state == .running)
            #expect(replay.startedTasks.isEmpty, "a second task was started beside the running one")

            replay.write(task, totalBytes: 40_000, expectedBytes: 100_000)
            await download.waitForBytes(40_000)
            #expect(download.currentProgress.expectedBytes == 100_000)
            try replay.finish(task, body: body)
            try Body.data(body).expectMatches(try await download.fileURL)
            #expect(await download.allEvents() == [.paused, .running, .completed(fixture.file("region.zip"))])
        }
    }

    /// A system task adopted after a relaunch runs in one of the manager's slots: with room for
    /// one download, a new one waits for it, and starts once the adopted one has finished.
    @Test func anAdoptedSystemTaskCountsInTheLimitsAndGivesItsSlotBack() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 10_000, seed: 403).bytes(0..<10_000))
            let url = URL(string: "https://example.com/maps/adopted.zip")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            let replay = BackgroundSessionReplay()
            let task = replay.addTask(taskIdentifier: 3, taskDescription: record.id.description, url: url)
            let manager = try makeManager(fixture, replay: replay) { $0.scheduling.maximumConcurrentDownloads = 1 }
            let adopted = try #require(await manager.downloads.first)
            await adopted.waitForEvent { $0 == .running }

            let second = await manager.download(
                from: URL(string: "https://example.com/maps/second.zip")!, to: .directory(fixture.directory))
            #expect(second.state == .queued)
            #expect(replay.startedTasks.isEmpty, "a download started beside the adopted one")

            try replay.finish(task, body: body)
            _ = try await adopted.fileURL
            let started = try #require(await replay.startedTask(0))
            #expect(started.downloadID == second.id)
            try replay.finish(started, body: body)
            _ = try await second.fileURL
        }
    }

    @Test func tasksNoRecordKnowsAreKeptOrCancelledAndReported() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = URL(string: "https://example.com/lost.bin")!
            let replay = BackgroundSessionReplay()
            replay.addTask(taskIdentifier: 11, taskDescription: UUID().uuidString, url: url)
            let manager = try makeManager(fixture, replay: replay)
            // A task that finished while the app was not running, for no download of ours.
            let finished = replay.addTask(taskIdentifier: 12, taskDescription: "not a download of ours", url: url)
            try replay.finish(finished, body: Data("kept".utf8))

            // The running task is cancelled once the session lists it.
            #expect(await replay.cancellation(0) == .init(taskIdentifier: 11, producingResumeData: false))
            let reports = await manager.unclaimedTasks.sorted { $0.taskIdentifier < $1.taskIdentifier }
            try #require(reports.map(\.taskIdentifier) == [11, 12])
            #expect(replay.cancellations == [.init(taskIdentifier: 11, producingResumeData: false)])
            #expect(reports[0].reason.contains("cancelled"))
            let kept = try #require(reports[1].keptFile)
            #expect(try Data(contentsOf: kept) == Data("kept".utf8))
            #expect(kept.path.hasPrefix(fixture.storeDirectory.path))

            // A task reported (and cancelled) while it wrote, that still finishes: its file is kept.
            let late = replay.addTask(taskIdentifier: 13, taskDescription: nil, url: url)
            replay.write(late, totalBytes: 10, expectedBytes: 20)
            try replay.finish(late, body: Data("late".utf8))
            let lateReport = try #require(await manager.unclaimedTasks.first { $0.taskIdentifier == 13 })
            #expect(lateReport.keptFile.map { try? Data(contentsOf: $0) } == Data("late".utf8))
            #expect(lateReport.reason.contains("cancelled") && lateReport.reason.contains("kept"))
        }
    }

    @Test func resumeDataInAFailedTasksErrorIsUsedToResume() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 50_000, seed: 402).bytes(0..<50_000))
            let url = URL(string: "https://example.com/video.mp4")!
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            let first = try #require(await replay.startedTask(0))
            #expect(first.resumeData == nil)

            let resumeData = Data("opaque resume data".utf8)
            replay.write(first, totalBytes: 20_000, expectedBytes: 50_000)
            replay.complete(first, error: .networkConnectionLost, resumeData: resumeData)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.urlErrorCode == .networkConnectionLost)
            #expect(fixture.storedRecord(download.id)?.systemResumeData == resumeData)

            await download.resume()
            let second = try #require(await replay.startedTask(1))
            #expect(second.resumeData == resumeData)
            replay.resume(second, atOffset: 20_000, expectedBytes: 50_000)
            try replay.finish(second, body: body)
            try Body.data(body).expectMatches(try await download.fileURL)
            #expect(await download.allEvents().contains(.resumed(at: 20_000)))
        }
    }

    @Test func pauseKeepsResumeDataAndRejectedResumeDataStartsAgain() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 30_000, seed: 403).bytes(0..<30_000))
            let url = URL(string: "https://example.com/book.pdf")!
            let resumeData = Data("resume here".utf8)
            let replay = BackgroundSessionReplay(resumeDataOnCancel: resumeData)
            let manager = try makeManager(fixture, replay: replay)
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            let first = try #require(await replay.startedTask(0))
            replay.write(first, totalBytes: 10_000, expectedBytes: 30_000)

            let paused = Task { await download.pause() }
            // The system confirms the cancellation after handing over its resume data.
            #expect(await replay.cancellation(0)?.taskIdentifier == first.taskIdentifier)
            replay.complete(first, error: .cancelled)
            await paused.value
            #expect(download.state == .paused)
            #expect(replay.cancellations == [.init(taskIdentifier: first.taskIdentifier, producingResumeData: true)])
            #expect(fixture.storedRecord(download.id)?.systemResumeData == resumeData)

            await download.resume()
            let second = try #require(await replay.startedTask(1))
            #expect(second.resumeData == resumeData)
            // The system cannot use its resume data: the task fails before any byte.
            replay.complete(second, error: .cannotDecodeRawData)
            let third = try #require(await replay.startedTask(2))
            #expect(third.resumeData == nil)
            try replay.finish(third, body: body)
            try Body.data(body).expectMatches(try await download.fileURL)
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    /// A download of the system engine cancelled with its data kept keeps Apple's resume data: a
    /// new download of the same URL to the same place (in this process, or after a relaunch)
    /// resumes from it.
    @Test(arguments: [false, true])
    func cancelKeepingDataKeepsTheSystemsResumeData(relaunching: Bool) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 30_000, seed: 406).bytes(0..<30_000))
            let url = URL(string: "https://example.com/talk.mp4")!
            let resumeData = Data("resume the talk".utf8)
            let destination = Destination.file(fixture.file("talk.mp4"))
            // The system's session outlives the app: a relaunched manager gets the same one.
            let replay = BackgroundSessionReplay(resumeDataOnCancel: resumeData)
            var manager = try makeManager(fixture, replay: replay)
            let download = await manager.download(from: url, to: destination)
            let first = try #require(await replay.startedTask(0))
            replay.write(first, totalBytes: 12_000, expectedBytes: 30_000)

            let cancelled = Task { await download.cancel(keepingPartialData: true) }
            #expect(
                await replay.cancellation(0) == .init(taskIdentifier: first.taskIdentifier, producingResumeData: true))
            replay.complete(first, error: .cancelled)
            await cancelled.value
            #expect(download.state == .cancelled)
            #expect(fixture.storedRecord(download.id)?.systemResumeData == resumeData)

            if relaunching {
                await manager.invalidate()
                manager = try makeManager(fixture, replay: replay)
                #expect(await manager.downloads.isEmpty)
            }
            let again = await manager.download(from: url, to: destination)
            let second = try #require(await replay.startedTask(1))
            #expect(second.resumeData == resumeData)
            try replay.finish(second, body: body)
            try Body.data(body).expectMatches(try await again.fileURL)
            // One record for the data at any time, and none once the file is delivered.
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    @Test func bytesOnDiskWithoutResumeDataContinueWithARangeRequest() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 600_000, seed: 405)
            let url = fixture.serve("/ranged-fallback.bin", body)
            // A download that received bytes through the ranged engine, and has no resume data.
            try fixture.leaveInterruptedDownload(
                of: url, to: .directory(fixture.directory), partial: body, length: 250_000)
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let download = try #require(await manager.downloads.first)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(replay.startedTasks.isEmpty)
            #expect(
                fixture.server.requests("/ranged-fallback.bin").map(\.rangeStart) == [
                    fixture.rangeStart(continuing: 250_000)
                ])
        }
    }

    @Test func aSecondTaskOfADownloadIsCancelledAndReported() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = URL(string: "https://example.com/twice.bin")!
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            let first = try #require(await replay.startedTask(0))

            let stray = replay.addTask(taskIdentifier: 999, taskDescription: download.id.description, url: url)
            replay.write(stray, totalBytes: 1, expectedBytes: 2)
            #expect(await replay.cancellation(0) == .init(taskIdentifier: 999, producingResumeData: false))
            #expect(await manager.unclaimedTasks.map(\.taskIdentifier) == [999])
            #expect(download.state == .running)

            try replay.finish(first, body: Data("ok".utf8))
            #expect(try Data(contentsOf: try await download.fileURL) == Data("ok".utf8))
        }
    }

    @Test func theCompletionHandlerMayComeAfterTheLastEvent() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 1000, seed: 404).bytes(0..<1000))
            let url = URL(string: "https://example.com/late.bin")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let task = replay.addTask(taskIdentifier: 5, taskDescription: record.id.description, url: url)
            try replay.finish(task, body: body)
            replay.finishEvents()
            let download = try #require(await manager.download(withID: record.id))
            _ = try await download.fileURL

            let (calls, call) = AsyncStream<Int>.makeStream()
            let count = Locked(0)
            #expect(
                await manager.handleEventsForBackgroundURLSession(identifier: Self.sessionIdentifier) {
                    call.yield(
                        count.withLock {
                            $0 += 1; return $0
                        })
                })
            var iterator = calls.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            // The next wake's handler waits for the next batch of events.
            #expect(
                await manager.handleEventsForBackgroundURLSession(identifier: Self.sessionIdentifier) {
                    call.yield(
                        count.withLock {
                            $0 += 1; return $0
                        })
                })
            replay.finishEvents()
            #expect(await iterator.next() == 2)
            // Another session's events are not this manager's.
            #expect(await !manager.handleEventsForBackgroundURLSession(identifier: "another.session") {})
            await manager.backgroundEventsHandled(forSessionIdentifier: "another.session")
        }
    }
}
