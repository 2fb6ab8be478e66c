@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a background manager tells the system about its session and each task (which networks,
/// when, how much), how it waits when the system holds a task back for its network policy, and
/// how many tasks it hands the system at once.
@Suite(.timeLimit(.minutes(2)))
struct SystemSchedulingTests {
    static let url = URL(string: "https://example.com/episodes/1.mp3")!

    func makeManager(
        _ fixture: Fixture, replay: BackgroundSessionReplay,
        _ configure: (inout DownloadManager.Configuration) -> Void = { _ in }
    ) throws -> DownloadManager {
        try fixture.makeManager {
            $0.background = .init(sessionIdentifier: BackgroundReplayTests.sessionIdentifier)
            replay.install(in: &$0)
            configure(&$0)
        }
    }

    /// A request's network access and scheduling hints reach its task, and are kept with the
    /// download for the tasks of later launches; a task made from resume data goes on at once.
    @Test func aRequestsHintsReachItsTaskAndAreKept() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay(resumeDataOnCancel: Data("resume".utf8))
            let manager = try makeManager(fixture, replay: replay)
            let begin = Date(timeIntervalSinceReferenceDate: 820_000_000)
            var request = DownloadRequest(url: Self.url, to: .directory(fixture.directory))
            request.networkAccess = NetworkAccess(allowsCellular: false, allowsConstrained: false)
            request.earliestBeginDate = begin
            request.expectedByteCount = 48_000_000
            let download = await manager.download(request)
            let task = try #require(await replay.startedTask(0))
            #expect(task.networkAccess == NetworkAccess(allowsCellular: false, allowsConstrained: false))
            #expect(task.earliestBeginDate == begin)
            #expect(task.expectedByteCount == 48_000_000)

            // Kept in the record: what a relaunch restores.
            let stored = try #require(fixture.storedRecord(download.id)).downloadRequest
            #expect(stored.networkAccess == request.networkAccess)
            #expect(stored.earliestBeginDate == begin)
            #expect(stored.expectedByteCount == 48_000_000)

            // Paused with the system's resume data, then resumed: the new task goes on at once.
            let paused = Task { await download.pause() }
            #expect(await replay.cancellation(0)?.taskIdentifier == task.taskIdentifier)
            replay.complete(task, error: .cancelled)
            await paused.value
            await download.resume()
            let next = try #require(await replay.startedTask(1))
            #expect(next.resumeData == Data("resume".utf8))
            #expect(next.earliestBeginDate == nil)
            #expect(next.networkAccess == request.networkAccess)
            #expect(next.expectedByteCount == 48_000_000)
            await manager.invalidate()
        }
    }

    /// A download that asks nothing special leaves every choice to the session.
    @Test func aPlainRequestLeavesEveryChoiceToTheSession() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            _ = await manager.download(from: Self.url, to: .directory(fixture.directory))
            let task = try #require(await replay.startedTask(0))
            #expect(task.networkAccess == NetworkAccess())
            #expect(task.earliestBeginDate == nil)
            #expect(task.expectedByteCount == nil)
            await manager.invalidate()
        }
    }

    /// The session's settings as Linux's URLSession keeps them (a manager of download tasks in
    /// an ordinary session); Apple's own (discretionary, launch events, expensive and constrained
    /// networks, shared container) are set in the Darwin branch, which CI type-checks.
    @Test func theSessionGetsTheBackgroundSettings() throws {
        var configuration = DownloadManager.Configuration(identifier: "test-\(UUID().uuidString)")
        configuration.network.maximumConnectionsPerHost = 3
        var background = DownloadManager.Configuration.Background(sessionIdentifier: "session")
        background.allowsCellularAccess = false
        background.onUnsupportedPlatform = .useForegroundSession
        let session = try configuration.makeSystemSessionConfiguration(background)
        #expect(!session.allowsCellularAccess)
        #expect(session.httpMaximumConnectionsPerHost == 3)
        #expect(session.urlCache == nil)
    }

    /// A task the system held back for its network policy (cellular access denied, on cellular)
    /// makes the download wait for the network, saying why, typed, and spending no retry; it
    /// continues once the monitor sees a network the policy allows.
    @Test(arguments: [NetworkUnavailableReason.cellular, .expensive, .constrained])
    func aTaskHeldBackForItsNetworkPolicyWaitsForAnAllowedNetwork(_ reason: NetworkUnavailableReason) async throws {
        let clock = ManualClock()
        let allowed = Locked(false)
        // Any network is there; only the policy's is missing.
        let probing = ProbingNetworkMonitor(clock: clock) { [allowed] _, policy in
            policy == nil || allowed.value
        }
        // The system's refusal is what makes the download wait: a monitor that cannot tell the
        // network's kind before a request (one that knows would keep the task from starting).
        let monitor = KindBlindMonitor(base: probing)
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay) {
                $0.connectivity.monitor = monitor
                $0.run(on: clock)
            }
            let body = Data(Body.pattern(count: 30_000, seed: 2240).bytes(0..<30_000))
            var request = DownloadRequest(url: Self.url, to: .directory(fixture.directory))
            request.networkAccess = NetworkAccess(
                allowsCellular: false, allowsExpensive: false, allowsConstrained: false)
            let download = await manager.download(request)
            let task = try #require(await replay.startedTask(0))
            replay.complete(task, error: .notConnectedToInternet, networkUnavailableReason: reason)

            let waiting = await download.waitForEvent { $0.error?.networkUnavailableReason != nil }
            #expect(waiting == .waitingForNetwork(after: try #require(waiting?.error)))
            #expect(waiting?.error?.networkUnavailableReason == reason)
            #expect(download.state == .waitingForNetwork)
            #expect(replay.startedTasks.count == 1)

            allowed.withLock { $0 = true }
            probing.networkChanged()
            let next = try #require(await replay.startedTask(1))
            try replay.finish(next, body: body)
            let file = try await download.fileURL
            #expect(try Data(contentsOf: file) == body)
            await manager.invalidate()
        }
    }

    /// 2,000 downloads: the system never has more than the budget's tasks at once, gets the next
    /// queued download as each task finishes, and every file is delivered; the system's completion
    /// handler is called once, after the session's last event.
    @Test func aBackgroundManagerHandsTheSystemAtMostItsBudgetOfTasks() async throws {
        try await withFixture(startsManager: false) { fixture in
            let count = 2_000
            let budget = 16
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay) {
                $0.background?.maximumSystemTasks = budget
                $0.scheduling.maximumConcurrentDownloads = 10_000
                $0.scheduling.maximumConcurrentDownloadsPerHost = 10_000
            }
            #expect(await manager.schedulingLimits.maximumConcurrentDownloads == budget)
            let calls = Locked(0)
            let (handled, handledContinuation) = AsyncStream<Void>.makeStream()
            await MainActor.run {
                _ = manager.handleEventsForBackgroundURLSession(identifier: BackgroundReplayTests.sessionIdentifier) {
                    calls.withLock { $0 += 1 }
                    handledContinuation.yield()
                }
            }
            var downloads: [Download] = []
            for index in 0..<count {
                let url = URL(string: "https://example.com/episodes/\(index).mp3")!
                downloads.append(await manager.download(from: url, to: .directory(fixture.directory)))
            }
            // Raising the queue's limit keeps the budget.
            await manager.setLimits(maximumConcurrentDownloads: 5_000)
            #expect(await manager.schedulingLimits.maximumConcurrentDownloads == budget)

            // Downloads start their tasks on their own: the order of the tasks is not the queue's.
            let indexByID = Dictionary(uniqueKeysWithValues: downloads.enumerated().map { ($1.id, $0) })
            // The whole budget goes to the system at once, and no more.
            _ = try #require(await replay.startedTask(budget - 1))
            #expect(replay.tasks.filter(\.isActive).count == budget)
            var mostActive = 0
            for started in 0..<count {
                let task = try #require(await replay.startedTask(started))
                mostActive = max(mostActive, replay.tasks.filter(\.isActive).count)
                let index = try #require(task.downloadID.flatMap { indexByID[$0] })
                try replay.finish(task, body: Data("episode \(index)".utf8))
            }
            #expect(mostActive <= budget)
            replay.finishEvents()
            var handledEvents = handled.makeAsyncIterator()
            await handledEvents.next()
            for (index, download) in downloads.enumerated() {
                let file = try await download.fileURL
                #expect(try Data(contentsOf: file) == Data("episode \(index)".utf8))
            }
            #expect(replay.startedTasks.count == count)
            #expect(calls.value == 1)
            await manager.invalidate()
        }
    }
}

/// A monitor that knows whether a network is there and, after a refusal, whether one a policy
/// allows is, but not the kind of the network before a request (``NetworkMonitor/isForbidden(_:by:)``
/// says nil).
private struct KindBlindMonitor: NetworkMonitor {
    let base: ProbingNetworkMonitor

    func isReachable(_ url: URL) -> Bool { base.isReachable(url) }
    func waitUntilReachable(_ url: URL) async { await base.waitUntilReachable(url) }
    func isReachable(_ url: URL, despite policy: NetworkUnavailableReason) -> Bool {
        base.isReachable(url, despite: policy)
    }
    func waitUntilReachable(_ url: URL, despite policy: NetworkUnavailableReason) async {
        await base.waitUntilReachable(url, despite: policy)
    }
}
