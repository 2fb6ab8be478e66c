@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads kept in front (iOS 26's continued processing) with the handoff mode, through the
/// real manager, the background session's events replayed: they stay on the ranged engine when
/// the app leaves the foreground, and are handed to the system when its time runs out.
@Suite(.timeLimit(.minutes(2)))
struct ContinuedProcessingTests {
    static let length: Int64 = 1_000_000
    static let held: Int64 = 300_000

    func makeManager(_ fixture: Fixture, replay: BackgroundSessionReplay) throws -> DownloadManager {
        try fixture.makeManager {
            $0.background = .init(sessionIdentifier: "test.continued.\(UUID().uuidString)")
            $0.background?.mode = .handoff
            replay.install(in: &$0)
        }
    }

    func etag(_ url: URL) -> String { "\"\(StableHash.hex(url.path))\"" }

    /// Serves `body` at `path`, held after `held` bytes until released, and starts its download
    /// in front, waiting for the held bytes.
    func startHeld(
        _ fixture: Fixture, manager: DownloadManager, path: String, body: Body
    ) async -> (URL, Download) {
        let url = fixture.serve(path, body) { $0.faults = [.holdAfter(Self.held)] }
        let download = await manager.download(from: url, to: .directory(fixture.file(String(path.dropFirst()))))
        await download.waitForBytes(Self.held)
        return (url, download)
    }

    /// The first byte a task's `Range` asks for.
    func firstByte(_ task: BackgroundSessionReplay.DownloadTask) throws -> Int64 {
        let range = try #require(task.originalRequest.value(forHTTPHeaderField: "Range"))
        return try #require(Int64(range.dropFirst("bytes=".count).dropLast()))
    }

    @Test func aKeptDownloadStaysOnTheRangedEngineWhenTheAppLeaves() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let keptBody = Body.pattern(count: Self.length, seed: 451)
            let otherBody = Body.pattern(count: Self.length, seed: 452)
            let (_, kept) = await startHeld(fixture, manager: manager, path: "/kept/file.bin", body: keptBody)
            let (otherURL, other) = await startHeld(fixture, manager: manager, path: "/other/file.bin", body: otherBody)
            _ = await manager.beginKeepingInFront([kept])

            await manager.appDidEnterBackground()
            // The other one is handed off; the kept one is not.
            let task = try #require(await replay.startedTask(0))
            #expect(task.originalRequest.url?.path == "/other/file.bin")

            // The kept one goes on over the network from where it was, with the ranged engine.
            fixture.server.release("/kept/file.bin")
            let file = try await kept.fileURL
            try keptBody.expectMatches(file)
            #expect(fixture.server.requests("/kept/file.bin").count == 1)
            #expect(replay.startedTasks.count == 1)

            let first = try firstByte(task)
            try replay.finish(
                task, body: otherBody.bytes(first..<Self.length), statusCode: 206,
                headers: ["Content-Range": "bytes \(first)-\(Self.length - 1)/\(Self.length)", "ETag": etag(otherURL)])
            try otherBody.expectMatches(try await other.fileURL)
        }
    }

    @Test func aKeptDownloadThatRestartsBehindUsesTheRangedEngine() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let body = Body.pattern(count: Self.length, seed: 453)
            let (_, kept) = await startHeld(fixture, manager: manager, path: "/restart/file.bin", body: body)
            _ = await manager.beginKeepingInFront([kept])
            await manager.appDidEnterBackground()

            await kept.pause()
            await kept.waitForEvent { $0.state == .paused }
            fixture.server.release("/restart/file.bin")
            await kept.resume()
            let file = try await kept.fileURL
            try body.expectMatches(file)
            #expect(replay.startedTasks.isEmpty)
            let continued = fixture.rangeStart(continuing: Self.held)
            #expect(fixture.server.requests("/restart/file.bin").map(\.rangeStart) == [0, continued])
        }
    }

    @Test func expiryHandsTheKeptDownloadOffFromItsBytes() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let body = Body.pattern(count: Self.length, seed: 454)
            let (url, kept) = await startHeld(fixture, manager: manager, path: "/expiry/file.bin", body: body)
            let keeping = await manager.beginKeepingInFront([kept])
            await manager.appDidEnterBackground()
            #expect(replay.startedTasks.isEmpty)

            await manager.endKeepingInFront(keeping, expired: true)
            let task = try #require(await replay.startedTask(0))
            let first = try firstByte(task)
            #expect(first == fixture.rangeStart(continuing: Self.held))
            #expect(task.originalRequest.value(forHTTPHeaderField: "If-Range") == etag(url))
            try replay.finish(
                task, body: body.bytes(first..<Self.length), statusCode: 206,
                headers: ["Content-Range": "bytes \(first)-\(Self.length - 1)/\(Self.length)", "ETag": etag(url)])
            let file = try await kept.fileURL
            try body.expectMatches(file)
            // The server sent the first part only: the rest came from the system's file.
            #expect(fixture.server.requests("/expiry/file.bin").count == 1)
            // A second end changes nothing.
            await manager.endKeepingInFront(keeping, expired: true)
            #expect(replay.startedTasks.count == 1)
        }
    }

    @Test func anEndedKeepingLeavesTheHandoffAsWithout() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let body = Body.pattern(count: Self.length, seed: 455)
            let (url, download) = await startHeld(fixture, manager: manager, path: "/ended/file.bin", body: body)
            // Kept, then ended normally in front: nothing moves, and leaving the foreground later
            // hands it off as without continued processing.
            let keeping = await manager.beginKeepingInFront([download])
            await manager.endKeepingInFront(keeping, expired: false)
            #expect(replay.startedTasks.isEmpty)

            await manager.appDidEnterBackground()
            let task = try #require(await replay.startedTask(0))
            let first = try firstByte(task)
            #expect(first == fixture.rangeStart(continuing: Self.held))
            try replay.finish(
                task, body: body.bytes(first..<Self.length), statusCode: 206,
                headers: ["Content-Range": "bytes \(first)-\(Self.length - 1)/\(Self.length)", "ETag": etag(url)])
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/ended/file.bin").count == 1)
        }
    }

    @Test func expiryInFrontMovesNothing() async throws {
        try await withFixture(startsManager: false) { fixture in
            let replay = BackgroundSessionReplay()
            let manager = try makeManager(fixture, replay: replay)
            let body = Body.pattern(count: Self.length, seed: 456)
            let (_, kept) = await startHeld(fixture, manager: manager, path: "/front/file.bin", body: body)
            let keeping = await manager.beginKeepingInFront([kept])
            // The app came back before the system's time ran out: the download stays where it is.
            #expect(await manager.endKeepingInFront(keeping, expired: true))
            fixture.server.release("/front/file.bin")
            try body.expectMatches(try await kept.fileURL)
            #expect(replay.startedTasks.isEmpty)
            #expect(fixture.server.requests("/front/file.bin").count == 1)
        }
    }
}
