@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The system cancels an app's background tasks on its own: every one when the user force-quits
/// the app (and it is not relaunched for them), or when background work is off or resources are
/// short. The next launch finds those downloads paused, not failed, and resumes them from the
/// system's resume data or the bytes on disk.
@Suite(.timeLimit(.minutes(1)))
struct SystemCancellationTests {
    func makeManager(_ fixture: Fixture, replay: BackgroundSessionReplay) throws -> DownloadManager {
        try fixture.makeManager {
            $0.background = .init(sessionIdentifier: BackgroundReplayTests.sessionIdentifier)
            replay.install(in: &$0)
        }
    }

    /// Waits until `download` has published `.paused` `count` times (a restored download is
    /// paused once as it is restored).
    static func waitForPauses(_ download: Download, _ count: Int) async {
        var seen = 0
        for await event in download.events where event == .paused {
            seen += 1
            if seen == count { return }
        }
    }

    @Test(
        arguments: [
            BackgroundSessionReplay.CancelledReason.userForceQuitApplication, .backgroundUpdatesDisabled,
            .insufficientSystemResources,
        ])
    func aTaskTheSystemCancelledIsPausedAtTheNextLaunchAndResumesFromItsData(
        _ reason: BackgroundSessionReplay.CancelledReason
    ) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 50_000, seed: 2220).bytes(0..<50_000))
            let url = URL(string: "https://example.com/season/1.mp4")!
            let replay = BackgroundSessionReplay()
            let first = try makeManager(fixture, replay: replay)
            let download = await first.download(from: url, to: .directory(fixture.directory))
            let task = try #require(await replay.startedTask(0))
            replay.write(task, totalBytes: 20_000, expectedBytes: 50_000)
            await download.waitForBytes(20_000)
            // The app ends; the system cancels its task and tells the next launch.
            await first.invalidate()
            let resumeData = Data("resume after \(reason)".utf8)
            replay.cancelBySystem(task, reason: reason, resumeData: resumeData)

            let second = try makeManager(fixture, replay: replay)
            let restored = try #require(await second.downloads.first)
            #expect(restored.id == download.id)
            await Self.waitForPauses(restored, 2)
            #expect(restored.state == .paused)
            let record = try #require(fixture.storedRecord(restored.id))
            #expect(record.systemResumeData == resumeData)
            #expect(record.intent == .paused)

            await restored.resume()
            let next = try #require(await replay.startedTask(1))
            #expect(next.resumeData == resumeData)
            replay.resume(next, atOffset: 20_000, expectedBytes: 50_000)
            try replay.finish(next, body: body)
            try Body.data(body).expectMatches(try await restored.fileURL)
            let events = await restored.allEvents()
            #expect(events.contains(.resumed(at: 20_000)))
            #expect(!events.contains { $0.error != nil })
            await second.invalidate()
        }
    }

    /// A relaunch that finds the session's task list empty and hears nothing of the task: the
    /// download is paused, and resumes with the resume data its record kept.
    @Test func aTaskTheSystemDroppedIsPausedAtTheNextLaunch() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Data(Body.pattern(count: 40_000, seed: 2221).bytes(0..<40_000))
            let url = URL(string: "https://example.com/season/2.mp4")!
            let resumeData = Data("paused once".utf8)
            let replay = BackgroundSessionReplay(resumeDataOnCancel: resumeData)
            let first = try makeManager(fixture, replay: replay)
            let download = await first.download(from: url, to: .directory(fixture.directory))
            let task = try #require(await replay.startedTask(0))
            replay.write(task, totalBytes: 10_000, expectedBytes: 40_000)
            await download.waitForBytes(10_000)
            let paused = Task { await download.pause() }
            // The system confirms the cancellation after handing over its resume data.
            #expect(await replay.cancellation(0)?.taskIdentifier == task.taskIdentifier)
            replay.complete(task, error: .cancelled)
            await paused.value
            await download.resume()
            let second = try #require(await replay.startedTask(1))
            await first.invalidate()
            replay.cancelBySystem(second, reason: .userForceQuitApplication, isDelivered: false)

            let relaunched = try makeManager(fixture, replay: replay)
            let restored = try #require(await relaunched.downloads.first)
            #expect(restored.state == .paused)
            await restored.resume()
            let third = try #require(await replay.startedTask(2))
            #expect(third.resumeData == fixture.storedRecord(restored.id)?.systemResumeData)
            try replay.finish(third, body: body)
            try Body.data(body).expectMatches(try await restored.fileURL)
            #expect(await !restored.allEvents().contains { $0.error != nil })
            await relaunched.invalidate()
        }
    }
}
