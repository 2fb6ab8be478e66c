@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The handoff mode, through the real manager and its downloads, with the background session's
/// events replayed: the ranged engine while the app is in front, a system task that continues the
/// bytes on disk once it left, whose file is appended only when it is the rest of the same file.
@Suite(.timeLimit(.minutes(2)))
struct HandoffTests {
    static let length: Int64 = 1_000_000
    static let held: Int64 = 300_000

    func makeManager(
        _ fixture: Fixture, replay: BackgroundSessionReplay,
        mode: DownloadManager.Configuration.Background.Mode = .handoff
    ) throws -> DownloadManager {
        try fixture.makeManager {
            $0.background = .init(sessionIdentifier: "test.handoff.\(UUID().uuidString)")
            $0.background?.mode = mode
            replay.install(in: &$0)
        }
    }

    /// A download that the ranged engine holds after `held` bytes, handed to the system.
    struct HandedOff {
        var body: Body
        var url: URL
        var replay: BackgroundSessionReplay
        var manager: DownloadManager
        var download: Download
        var task: BackgroundSessionReplay.DownloadTask
        /// The first byte the task asked for.
        var firstByte: Int64
    }

    /// Serves a file at `path` that the server holds after `held` bytes, downloads it in front,
    /// and tells the manager that the app left the foreground.
    func handOff(_ fixture: Fixture, path: String, seed: UInt64) async throws -> HandedOff {
        let body = Body.pattern(count: Self.length, seed: seed)
        let url = fixture.serve(path, body) { $0.faults = [.holdAfter(Self.held)] }
        let replay = BackgroundSessionReplay()
        let manager = try makeManager(fixture, replay: replay)
        let download = await manager.download(from: url, to: .directory(fixture.file("inbox")))
        await download.waitForBytes(Self.held)
        // In front: the ranged engine, no system task.
        #expect(replay.startedTasks.isEmpty)
        await manager.appDidEnterBackground()
        let task = try #require(await replay.startedTask(0))
        let range = try #require(task.originalRequest.value(forHTTPHeaderField: "Range"))
        let firstByte = try #require(Int64(range.dropFirst("bytes=".count).dropLast()))
        return HandedOff(
            body: body, url: url, replay: replay, manager: manager, download: download, task: task,
            firstByte: firstByte)
    }

    func etag(_ url: URL) -> String { "\"\(StableHash.hex(url.path))\"" }

    /// Replays that the system finished `task` with the rest of `body` from `firstByte`: a `206`
    /// of the version the partial file holds.
    func finishRest(
        _ task: BackgroundSessionReplay.DownloadTask, of body: Body, from firstByte: Int64, url: URL,
        replay: BackgroundSessionReplay
    ) throws {
        try replay.finish(
            task, body: body.bytes(firstByte..<Self.length), statusCode: 206,
            headers: ["Content-Range": "bytes \(firstByte)-\(Self.length - 1)/\(Self.length)", "ETag": etag(url)])
    }

    @Test func aRunningDownloadContinuesAsASystemTaskFromItsBytes() async throws {
        try await withFixture(startsManager: false) { fixture in
            let handed = try await handOff(fixture, path: "/handoff/file.bin", seed: 441)
            let (body, url, replay) = (handed.body, handed.url, handed.replay)
            let (download, task, firstByte) = (handed.download, handed.task, handed.firstByte)

            // A range from the bytes on disk (all the server sent before it held), less the
            // overlap, guarded by the record's validator; the record keeps it.
            let record = try #require(fixture.storedRecord(download.id)?.handoff)
            #expect(record.offset == Self.held)
            #expect(firstByte == fixture.rangeStart(continuing: Self.held))
            #expect(task.originalRequest.value(forHTTPHeaderField: "If-Range") == etag(url))
            try finishRest(task, of: body, from: firstByte, url: url, replay: replay)

            let file = try await download.fileURL
            try body.expectMatches(file)
            // The server sent the first part only: the rest came from the system's file.
            #expect(fixture.server.requests("/handoff/file.bin").count == 1)
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    enum WrongAnswer: String, CaseIterable, Sendable {
        case wholeFile, rangeAtAnotherOffset, otherVersion
    }

    @Test(arguments: WrongAnswer.allCases)
    func anAnswerThatIsNotTheRestIsNotAppended(_ answer: WrongAnswer) async throws {
        try await withFixture(startsManager: false) { fixture in
            let handed = try await handOff(fixture, path: "/handoff/wrong.bin", seed: 442)
            let (body, url, replay) = (handed.body, handed.url, handed.replay)
            let (download, task, firstByte) = (handed.download, handed.task, handed.firstByte)
            let kept = firstByte + 65_536
            let last = Self.length - 1
            switch answer {
            case .wholeFile:
                try replay.finish(
                    task, body: body.bytes(0..<Self.length), statusCode: 200, headers: ["ETag": etag(url)])
            case .rangeAtAnotherOffset:
                try replay.finish(
                    task, body: body.bytes(kept..<Self.length), statusCode: 206,
                    headers: ["Content-Range": "bytes \(kept)-\(last)/\(Self.length)", "ETag": etag(url)])
            case .otherVersion:
                // The same range and validator, other bytes: the overlap differs.
                try replay.finish(
                    task, body: Body.pattern(count: Self.length, seed: 9).bytes(firstByte..<Self.length),
                    statusCode: 206,
                    headers: ["Content-Range": "bytes \(firstByte)-\(last)/\(Self.length)", "ETag": etag(url)])
            }

            if answer == .otherVersion {
                // The bytes said the file changed: the whole file again, as a system task.
                let restart = try #require(await replay.startedTask(1))
                #expect(restart.originalRequest.value(forHTTPHeaderField: "Range") == nil)
                try replay.finish(restart, body: body.bytes(0..<Self.length), headers: ["ETag": etag(url)])
            }
            let file = try await download.fileURL
            try body.expectMatches(file)
            let ranges = fixture.server.requests("/handoff/wrong.bin").map(\.rangeStart)
            if answer != .otherVersion {
                // Nothing was appended: the ranged engine goes on over the network from where the
                // partial file ended when it was handed over, with its own checks.
                #expect(ranges == [0, firstByte])
            }
        }
    }

    @Test func aTaskTheSystemEndsLeavesTheBytesForTheNextTask() async throws {
        try await withFixture(startsManager: false) { fixture in
            let handed = try await handOff(fixture, path: "/handoff/ended.bin", seed: 443)
            let (body, url, replay) = (handed.body, handed.url, handed.replay)
            let (download, task, firstByte) = (handed.download, handed.task, handed.firstByte)

            replay.write(task, totalBytes: 100_000, expectedBytes: Self.length - firstByte)
            replay.complete(task, error: .networkConnectionLost)
            await download.waitForEvent { $0.state == .failed }
            await download.resume()

            // Still in the background: a new task from the same bytes (the system's are lost).
            let next = try #require(await replay.startedTask(1))
            #expect(next.originalRequest.value(forHTTPHeaderField: "Range") == "bytes=\(firstByte)-")
            try finishRest(next, of: body, from: firstByte, url: url, replay: replay)
            let file = try await download.fileURL
            try body.expectMatches(file)
        }
    }

    @Test func aRelaunchAdoptsTheRemainderWithTheSystem() async throws {
        try await withFixture(startsManager: false) { fixture in
            let handed = try await handOff(fixture, path: "/handoff/relaunch.bin", seed: 444)
            let (body, url, replay, first) = (handed.body, handed.url, handed.replay, handed.manager)
            let (download, task, firstByte) = (handed.download, handed.task, handed.firstByte)
            let id = download.id
            await first.invalidate()
            // The record says the remainder is with the system.
            #expect(fixture.storedRecord(id)?.handoff?.firstByte == firstByte)

            let relaunched = try makeManager(fixture, replay: replay)
            let adopted = try #require(await relaunched.download(withID: id))
            await adopted.waitForEvent { $0 == .running }
            try finishRest(task, of: body, from: firstByte, url: url, replay: replay)
            let file = try await adopted.fileURL
            try body.expectMatches(file)
            #expect(fixture.server.requests("/handoff/relaunch.bin").count == 1)
        }
    }

    @Test func foregroundOnlyNeverStartsASystemTask() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: Self.length, seed: 445)
            let url = fixture.serve("/handoff/front.bin", body) { $0.faults = [.holdAfter(Self.held)] }
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay, mode: .foregroundOnly)
            let download = await manager.download(from: url, to: .directory(fixture.directory))
            await download.waitForBytes(Self.held)
            await manager.appDidEnterBackground()
            fixture.server.release("/handoff/front.bin")
            let file = try await download.fileURL
            try body.expectMatches(file)
            #expect(replay.startedTasks.isEmpty)
            #expect(fixture.server.requests("/handoff/front.bin").count == 1)
        }
    }

    @Test func backInFrontNewDownloadsUseTheRangedEngine() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 50_000, seed: 446)
            let url = fixture.serve("/handoff/later.bin", body)
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            await manager.appDidEnterBackground()
            let queued = await manager.download(from: url, to: .directory(fixture.file("behind")))
            // Not started yet when the app left: a task for the whole file.
            let task = try #require(await replay.startedTask(0))
            #expect(task.originalRequest.value(forHTTPHeaderField: "Range") == nil)
            try replay.finish(task, body: body.bytes(0..<body.count), headers: ["ETag": etag(url)])
            let file = try await queued.fileURL
            try body.expectMatches(file)

            await manager.appWillEnterForeground()
            let front = await manager.download(from: url, to: .directory(fixture.file("front")))
            let frontFile = try await front.fileURL
            try body.expectMatches(frontFile)
            #expect(replay.startedTasks.count == 1)
            #expect(fixture.server.requests("/handoff/later.bin").count == 1)
        }
    }
}
