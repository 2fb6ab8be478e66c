// The complete example of TestingYourDownloads.md ("A complete test file"), kept here as it is
// there, through DownstreamTesting's public API only, so that it compiles and passes.

import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's code under test. In an app it lives in the app target (the tests import it with
/// `@testable import`) and takes its configuration from outside, so that each test gives it a
/// store, a folder and a server of its own.
final class EpisodeDownloads: Sendable {
    let manager: DownloadManager
    let folder: URL

    /// - Parameter freshLink: asks the app's backend for a new signed link to the file of an
    ///   expired one.
    init(
        configuration: DownloadManager.Configuration, folder: URL,
        freshLink: @escaping @Sendable (URL) async -> URL? = { _ in nil }
    ) throws {
        var configuration = configuration
        configuration.urlRefresh.handler = { rejected in await freshLink(rejected.url) }
        manager = try DownloadManager(configuration: configuration)
        self.folder = folder
    }

    /// Starts downloading an episode into the folder.
    func start(_ url: URL) async -> Download {
        await manager.download(from: url, to: .directory(folder))
    }

    /// Downloads an episode into the folder and returns its file.
    func download(_ url: URL) async throws -> URL {
        try await start(url).fileURL
    }
}

/// Each test gets a new instance: a server, a folder and a store of its own, and a manager
/// identifier no other test uses. `deinit` cleans up.
@Suite(.timeLimit(.minutes(1)))
final class EpisodeDownloadsTests: Sendable {
    let server: TestServer
    let folder: URL
    let configuration: DownloadManager.Configuration

    init() throws {
        server = try TestServer()
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("EpisodeDownloadsTests-\(UUID().uuidString)", isDirectory: true)
        var configuration = DownloadManager.Configuration(identifier: "com.example.podcasts.\(UUID().uuidString)")
        configuration.storage.directory = folder.appendingPathComponent("store", isDirectory: true)
        configuration.retry.initialDelay = .zero  // retry at once: the tests do not wait
        self.configuration = configuration
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func aBrokenConnectionContinuesWhereItStopped() async throws {
        let episode = Body.pattern(count: 2_000_000)
        var route = Route(body: episode)
        route.etag = "\"episode-1\""
        route.faults = [.closeAfter(500_000)]  // the first response ends after 500,000 bytes
        server.setRoute("/episodes/1.mp3", route)

        let downloads = try EpisodeDownloads(configuration: configuration, folder: folder)
        let file = try await downloads.download(server.url("/episodes/1.mp3"))

        #expect(file.lastPathComponent == "1.mp3")
        #expect(try episode.firstMismatch(inFileAt: file) == nil)
        // The retry asked for the missing bytes (and the 64 KiB before them again, to compare
        // them with the disk's), if the file is still the same version.
        let requests = server.requests("/episodes/1.mp3")
        #expect(requests.count == 2)
        #expect(requests[1].rangeStart == 434_464)  // 500,000 minus 64 KiB
        #expect(requests[1].header("If-Range") == "\"episode-1\"")
        #expect(requests[1].status == 206)
    }

    @Test func anExpiredLinkIsReplacedByAFreshOne() async throws {
        let episode = Body.pattern(count: 1_000_000)
        var route = Route(body: episode)
        route.queryExpiresAfter = 600_000  // each signature is good for 600,000 bytes
        server.setRoute("/episodes/2.mp3", route)

        let fresh = server.url("/episodes/2.mp3?signature=fresh")
        let downloads = try EpisodeDownloads(configuration: configuration, folder: folder) { _ in fresh }
        let file = try await downloads.download(server.url("/episodes/2.mp3?signature=first"))

        #expect(try episode.firstMismatch(inFileAt: file) == nil)
        // The first link ran out after 600,000 bytes and was refused when the download tried
        // again; the fresh one continued from the bytes on disk instead of starting over.
        let requests = server.requests("/episodes/2.mp3")
        #expect(requests.map(\.status).suffix(2) == [403, 206])
        #expect(requests[0].bodyBytesSent == 600_000)
        #expect(requests[2].target == "/episodes/2.mp3?signature=fresh")
        #expect((requests[2].rangeStart ?? 0) > 0)
    }

    @Test func aMissingEpisodeFailsWithItsStatus() async throws {
        var route = Route(body: .pattern(count: 1000))
        route.faults = [.status(404)]
        server.setRoute("/episodes/3.mp3", route)

        let downloads = try EpisodeDownloads(configuration: configuration, folder: folder)
        let error = try await #require(throws: DownloadError.self) {
            try await downloads.download(server.url("/episodes/3.mp3"))
        }
        #expect(error.statusCode == 404)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("3.mp3").path))
    }

    @Test func aRelaunchFinishesWhatTheSystemDownloadedInTheBackground() async throws {
        let replay = BackgroundSessionReplay()
        var configuration = self.configuration
        configuration.background = .init(sessionIdentifier: "com.example.podcasts.background")
        replay.install(in: &configuration)
        let url = URL(string: "https://podcasts.example.com/episodes/4.mp3")!
        let episode = Body.pattern(count: 100_000).bytes(0..<100_000)

        // The app starts the download; the system runs it and the app is terminated.
        let task: BackgroundSessionReplay.DownloadTask
        let id: Download.ID
        do {
            let downloads = try EpisodeDownloads(configuration: configuration, folder: folder)
            let download = await downloads.start(url)
            id = download.id
            task = try #require(await replay.startedTask(0))
            #expect(task.downloadID == download.id)
            #expect(task.originalRequest.url == url)
            replay.write(task, totalBytes: 40_000, expectedBytes: 100_000)
            await downloads.manager.invalidate()
        }

        // The system finished the task while the app was not running, and relaunches it: the app
        // makes its manager again, which adopts the task, and hands the system's completion
        // handler over (the app delegate's `handleEventsForBackgroundURLSession`, or SwiftUI's
        // `backgroundTask(.urlSession(_:))`).
        let downloads = try EpisodeDownloads(configuration: configuration, folder: folder)
        async let eventsHandled: Void = downloads.manager.backgroundEventsHandled(
            forSessionIdentifier: "com.example.podcasts.background")
        try replay.finish(task, body: episode)
        replay.finishEvents()
        await eventsHandled

        // The completion handler is called once the file is in place.
        let file = folder.appendingPathComponent("4.mp3")
        #expect(try Data(contentsOf: file) == episode)
        #expect(await downloads.manager.download(withID: id)?.state == .completed)
        #expect(replay.startedTasks.count == 1)
    }
}
