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

    /// A manager of the fixture's store with a background session replaced by `replay`.
    func makeManager(_ fixture: Fixture, replay: ReplaySession) throws -> DownloadManager {
        try fixture.makeManager {
            var background = DownloadManager.Configuration.Background(sessionIdentifier: Self.sessionIdentifier)
            background.onUnsupportedPlatform = .useForegroundSession
            $0.background = background
            $0.makeSystemSession = { _ in replay }
        }
    }

    /// Where the "system" writes its files.
    func systemDirectory(_ fixture: Fixture) throws -> URL {
        let directory = fixture.storeDirectory.deletingLastPathComponent().appendingPathComponent("system")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aRelaunchForTasksThatFinishedWhileTheAppWasNotRunning() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 200_000, seed: 400).bytes(0..<200_000))
            let url = URL(string: "https://example.com/episodes/12.mp3")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            let replay = ReplaySession()
            let manager = try makeManager(fixture, replay: replay)
            let handled = Locked<[String]>([])
            manager.addCompletionHandler { _, file in
                handled.withLock { $0.append("completion handler: \(file.lastPathComponent)") }
            }
            let (calls, call) = AsyncStream<String>.makeStream()
            // The system hands over its completion handler first, then replays the events.
            #expect(
                manager.handleEventsForBackgroundURLSession(identifier: Self.sessionIdentifier) {
                    MainActor.assertIsolated()
                    let file = fixture.file("12.mp3")
                    let state =
                        "file: \(FileManager.default.fileExists(atPath: file.path)), "
                        + "record: \(fixture.storedRecord(record.id) != nil), handlers: \(handled.value.count)"
                    call.yield(state)
                })
            let router = try #require(manager.systemRouter)
            let task = ReplaySession.Task(
                identifier: 7, description: record.id.rawValue.uuidString,
                response: ReplaySession.response(url, headers: ["ETag": "\"e12\""]))
            try router.replayFinished(task, body: body, directory: systemDirectory(fixture))
            router.sessionFinishedEvents()

            var iterator = calls.makeAsyncIterator()
            // Called once everything is done: file in place, record gone, handlers run.
            #expect(await iterator.next() == "file: true, record: false, handlers: 1")
            let download = try #require(await manager.download(withID: record.id))
            #expect(download.state == .completed)
            try Body.data(body).expectMatches(fixture.file("12.mp3"))
            #expect(handled.value == ["completion handler: 12.mp3"])
            #expect(replay.startedSoFar.isEmpty)
            // Repeated and late events change nothing, and call nothing twice.
            router.completed(task, error: nil)
            try router.replayFinished(task, body: body, directory: systemDirectory(fixture))
            router.sessionFinishedEvents()
            #expect(fixture.listing() == ["12.mp3"])
            #expect(await manager.unclaimedTasks.isEmpty)
        }
    }

    @Test func aRelaunchAdoptsRunningTasksAndNeverStartsASecondOne() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 100_000, seed: 401).bytes(0..<100_000))
            let url = URL(string: "https://example.com/maps/region.zip")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            let task = ReplaySession.Task(
                identifier: 3, description: record.id.rawValue.uuidString, response: ReplaySession.response(url))
            // The session is slow to list its tasks.
            let replay = ReplaySession(existing: [task], answersAllTasks: false)
            let manager = try makeManager(fixture, replay: replay)
            let download = try #require(await manager.downloads.first)
            #expect(download.state == .paused)

            // The app resumes at once; the download waits until the session's tasks are known.
            let resumed = Task { await download.resume() }
            replay.allTasksGate.open()
            await resumed.value
            #expect(download.state == .running)
            #expect(replay.startedSoFar.isEmpty, "a second task was started beside the running one")

            let router = try #require(manager.systemRouter)
            router.wrote(task, total: 40_000, expected: 100_000)
            await download.waitForBytes(40_000)
            #expect(download.currentProgress.expectedBytes == 100_000)
            try router.replayFinished(task, body: body, directory: systemDirectory(fixture))
            try Body.data(body).expectMatches(try await download.fileURL)
            #expect(await download.allEvents() == [.paused, .running, .completed(fixture.file("region.zip"))])
        }
    }

    @Test func tasksNoRecordKnowsAreKeptOrCancelledAndReported() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = URL(string: "https://example.com/lost.bin")!
            let running = ReplaySession.Task(
                identifier: 11, description: UUID().uuidString, response: ReplaySession.response(url))
            let replay = ReplaySession(existing: [running])
            var cancellations = replay.cancellationRequests.makeAsyncIterator()
            let manager = try makeManager(fixture, replay: replay)
            let router = try #require(manager.systemRouter)
            // A task that finished while the app was not running, for no download of ours.
            let finished = ReplaySession.Task(
                identifier: 12, description: "not a download of ours", response: ReplaySession.response(url))
            let file = try systemDirectory(fixture).appendingPathComponent("CFNetworkDownload_12.tmp")
            try Data("kept".utf8).write(to: file)
            router.finishedDownloading(finished, to: file)
            finished.isActive = false
            router.completed(finished, error: nil)

            // The running task is cancelled once the session lists it.
            #expect(await cancellations.next() == .init(taskIdentifier: 11, producingResumeData: false))
            let reports = await manager.unclaimedTasks.sorted { $0.taskIdentifier < $1.taskIdentifier }
            #expect(reports.map(\.taskIdentifier) == [11, 12])
            #expect(replay.cancelled == [.init(taskIdentifier: 11, producingResumeData: false)])
            #expect(reports[0].reason.contains("cancelled"))
            let kept = try #require(reports[1].keptFile)
            #expect(try Data(contentsOf: kept) == Data("kept".utf8))
            #expect(kept.path.hasPrefix(fixture.storeDirectory.path))

            // A task reported (and cancelled) while it wrote, that still finishes: its file is kept.
            let late = ReplaySession.Task(identifier: 13, description: nil, response: ReplaySession.response(url))
            router.wrote(late, total: 10, expected: 20)
            let lateFile = try systemDirectory(fixture).appendingPathComponent("CFNetworkDownload_13.tmp")
            try Data("late".utf8).write(to: lateFile)
            router.finishedDownloading(late, to: lateFile)
            router.completed(late, error: nil)
            let lateReport = try #require(await manager.unclaimedTasks.first { $0.taskIdentifier == 13 })
            #expect(lateReport.keptFile.map { try? Data(contentsOf: $0) } == Data("late".utf8))
            #expect(lateReport.reason.contains("cancelled") && lateReport.reason.contains("kept"))
        }
    }

    @Test func resumeDataInAFailedTasksErrorIsUsedToResume() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 50_000, seed: 402).bytes(0..<50_000))
            let url = URL(string: "https://example.com/video.mp4")!
            let replay = ReplaySession()
            let manager = try makeManager(fixture, replay: replay)
            let router = try #require(manager.systemRouter)
            var started = replay.startedTasks.makeAsyncIterator()
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            let first = try #require(await started.next())
            #expect(first.resumeData == nil)

            let resumeData = Data("opaque resume data".utf8)
            router.wrote(first, total: 20_000, expected: 50_000)
            first.isActive = false
            router.completed(
                first,
                error: NSError(
                    domain: NSURLErrorDomain, code: URLError.networkConnectionLost.rawValue,
                    userInfo: [URLSessionDownloadTaskResumeDataKey: resumeData]))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.urlErrorCode == .networkConnectionLost)
            #expect(fixture.storedRecord(download.id)?.systemResumeData == resumeData)

            await download.resume()
            let second = try #require(await started.next())
            #expect(second.resumeData == resumeData)
            router.resumed(second, at: 20_000, expected: 50_000)
            try router.replayFinished(second, body: body, directory: systemDirectory(fixture))
            try Body.data(body).expectMatches(try await download.fileURL)
            #expect(await download.allEvents().contains(.resumed(at: 20_000)))
        }
    }

    @Test func pauseKeepsResumeDataAndRejectedResumeDataStartsAgain() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 30_000, seed: 403).bytes(0..<30_000))
            let url = URL(string: "https://example.com/book.pdf")!
            let resumeData = Data("resume here".utf8)
            let replay = ReplaySession(resumeDataOnCancel: resumeData)
            let manager = try makeManager(fixture, replay: replay)
            let router = try #require(manager.systemRouter)
            var started = replay.startedTasks.makeAsyncIterator()
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            let first = try #require(await started.next())
            router.wrote(first, total: 10_000, expected: 30_000)

            var cancellations = replay.cancellationRequests.makeAsyncIterator()
            let paused = Task { await download.pause() }
            // The system confirms the cancellation after handing over its resume data.
            #expect(await cancellations.next()?.taskIdentifier == first.taskIdentifier)
            first.isActive = false
            router.completed(first, error: URLError(.cancelled))
            await paused.value
            #expect(download.state == .paused)
            #expect(replay.cancelled == [.init(taskIdentifier: first.taskIdentifier, producingResumeData: true)])
            #expect(fixture.storedRecord(download.id)?.systemResumeData == resumeData)

            await download.resume()
            let second = try #require(await started.next())
            #expect(second.resumeData == resumeData)
            // The system cannot use its resume data: the task fails before any byte.
            second.isActive = false
            router.completed(second, error: URLError(.cannotDecodeRawData))
            let third = try #require(await started.next())
            #expect(third.resumeData == nil)
            try router.replayFinished(third, body: body, directory: systemDirectory(fixture))
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
            var replay = ReplaySession(resumeDataOnCancel: resumeData)
            var manager = try makeManager(fixture, replay: replay)
            var started = replay.startedTasks.makeAsyncIterator()
            let download = await manager.download(from: url, to: destination)
            let first = try #require(await started.next())
            try #require(manager.systemRouter).wrote(first, total: 12_000, expected: 30_000)

            var cancellations = replay.cancellationRequests.makeAsyncIterator()
            let cancelled = Task { await download.cancel(keepingPartialData: true) }
            #expect(
                await cancellations.next() == .init(taskIdentifier: first.taskIdentifier, producingResumeData: true))
            first.isActive = false
            try #require(manager.systemRouter).completed(first, error: URLError(.cancelled))
            await cancelled.value
            #expect(download.state == .cancelled)
            #expect(fixture.storedRecord(download.id)?.systemResumeData == resumeData)

            if relaunching {
                await manager.invalidate()
                replay = ReplaySession(resumeDataOnCancel: resumeData)
                started = replay.startedTasks.makeAsyncIterator()
                manager = try makeManager(fixture, replay: replay)
                #expect(await manager.downloads.isEmpty)
            }
            let again = await manager.download(from: url, to: destination)
            let second = try #require(await started.next())
            #expect(second.resumeData == resumeData)
            try #require(manager.systemRouter).replayFinished(second, body: body, directory: systemDirectory(fixture))
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
            let replay = ReplaySession()
            let manager = try makeManager(fixture, replay: replay)
            let download = try #require(await manager.downloads.first)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(replay.startedSoFar.isEmpty)
            #expect(fixture.server.requests("/ranged-fallback.bin").map(\.rangeStart) == [250_000])
        }
    }

    @Test func aSecondTaskOfADownloadIsCancelledAndReported() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = URL(string: "https://example.com/twice.bin")!
            let replay = ReplaySession()
            let manager = try makeManager(fixture, replay: replay)
            let router = try #require(manager.systemRouter)
            var started = replay.startedTasks.makeAsyncIterator()
            var cancellations = replay.cancellationRequests.makeAsyncIterator()
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            let first = try #require(await started.next())

            let stray = ReplaySession.Task(
                identifier: 999, description: download.id.rawValue.uuidString, response: ReplaySession.response(url))
            router.wrote(stray, total: 1, expected: 2)
            #expect(await cancellations.next() == .init(taskIdentifier: 999, producingResumeData: false))
            #expect(await manager.unclaimedTasks.map(\.taskIdentifier) == [999])
            #expect(download.state == .running)

            try router.replayFinished(first, body: Data("ok".utf8), directory: systemDirectory(fixture))
            #expect(try Data(contentsOf: try await download.fileURL) == Data("ok".utf8))
        }
    }

    @Test func theCompletionHandlerMayComeAfterTheLastEvent() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 1000, seed: 404).bytes(0..<1000))
            let url = URL(string: "https://example.com/late.bin")!
            let record = try fixture.leaveInterruptedDownload(of: url, to: .directory(fixture.directory), partial: nil)
            let replay = ReplaySession()
            let manager = try makeManager(fixture, replay: replay)
            let router = try #require(manager.systemRouter)
            let task = ReplaySession.Task(
                identifier: 5, description: record.id.rawValue.uuidString, response: ReplaySession.response(url))
            try router.replayFinished(task, body: body, directory: systemDirectory(fixture))
            router.sessionFinishedEvents()
            let download = try #require(await manager.download(withID: record.id))
            _ = try await download.fileURL

            let (calls, call) = AsyncStream<Int>.makeStream()
            let count = Locked(0)
            #expect(
                manager.handleEventsForBackgroundURLSession(identifier: Self.sessionIdentifier) {
                    call.yield(
                        count.withLock {
                            $0 += 1; return $0
                        })
                })
            var iterator = calls.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            // The next wake's handler waits for the next batch of events.
            #expect(
                manager.handleEventsForBackgroundURLSession(identifier: Self.sessionIdentifier) {
                    call.yield(
                        count.withLock {
                            $0 += 1; return $0
                        })
                })
            router.sessionFinishedEvents()
            #expect(await iterator.next() == 2)
            // Another session's events are not this manager's.
            #expect(!manager.handleEventsForBackgroundURLSession(identifier: "another.session") {})
            await manager.backgroundEventsHandled(forSessionIdentifier: "another.session")
        }
    }
}
