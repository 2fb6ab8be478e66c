import Downstream
import DownstreamTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code of README.md and the DocC articles, kept here so that it compiles, and run against
/// the loopback server where it can be.
@Suite(.timeLimit(.minutes(2)))
struct CodeSamplesTests {
    // README.md and Downstream.md: the quick start (with the test's configuration, which keeps
    // the store in a temporary directory).
    func quickStart(url: URL, downloads: URL, configuration: DownloadManager.Configuration) async throws -> URL {
        let manager = try DownloadManager(configuration: configuration)
        let download = await manager.download(from: url, to: .directory(downloads))

        Task {
            for await progress in download.progress {
                print(progress.fractionCompleted ?? 0, progress.bytesPerSecond)
            }
        }
        let file = try await download.fileURL
        return file
    }

    // GettingStarted.md: configuration.
    func configuredManager(store: URL) throws -> DownloadManager {
        try DownloadManager(
            configuration: .init(identifier: "com.example.app.media.\(UUID().uuidString)") {
                $0.network.maximumConnectionsPerHost = 4
                $0.network.requestTimeout = .seconds(30)
                $0.storage.directory = store
            })
    }

    // GettingStarted.md: following, controlling and handling errors.
    func gettingStarted(manager: DownloadManager, url: URL, downloads: URL) async throws -> URL {
        let file = try await manager.downloadFile(from: url, to: .directory(downloads))
        let download = await manager.download(
            from: url, to: .file(downloads.appendingPathComponent("movie.mp4"), ifExists: .replace))
        Task {
            for await event in download.events {
                print(event)
            }
        }
        await download.pause()
        await download.resume()
        do {
            _ = try await download.fileURL
        } catch let error as DownloadError where error.isResumable {
            await download.resume()
        }
        return file
    }

    // DownloadRequest's documentation: headers go with every request.
    func authorizedRequest(manager: DownloadManager, url: URL, token: String, downloads: URL) async -> Download {
        var urlRequest = URLRequest(url: url)
        urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return await manager.download(DownloadRequest(urlRequest, to: .directory(downloads)))
    }

    // DownloadError's documentation.
    func errorKinds(download: Download) async {
        do {
            _ = try await download.fileURL
        } catch let error as DownloadError where error.kind == .httpStatus {
            print("The server answered \(error.statusCode!)")
        } catch {
            print(error)
        }
    }

    // SurvivingRelaunch.md: the app's download center (with the test's configuration).
    final class DownloadCenter: Sendable {
        let manager: DownloadManager

        init(configuration: DownloadManager.Configuration) throws {
            manager = try DownloadManager(configuration: configuration)
        }

        func download(episode: String, from url: URL, to folder: URL) async -> Download {
            await manager.download(
                DownloadRequest(URLRequest(url: url), to: .directory(folder), metadata: ["episode": episode]))
        }

        func restoredEpisodes() async -> [String: Download] {
            var episodes: [String: Download] = [:]
            for download in await manager.downloads {
                if let episode = download.request.metadata["episode"] {
                    episodes[episode] = download
                }
            }
            return episodes
        }
    }

    // SurvivingRelaunch.md: resuming interrupted downloads by themselves.
    func resumingManager(store: URL) throws -> DownloadManager {
        try DownloadManager(
            configuration: .init(identifier: "com.example.app.media.\(UUID().uuidString)") {
                $0.restoration.resumesInterruptedDownloads = true
                $0.storage.directory = store
            })
    }

    @Test func theDownloadCenterFindsItsEpisodesAfterARelaunch() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 72)
            let url = fixture.serve("/episode12.mp3", body) { $0.faults = [.holdAfter(100_000)] }
            let first = try DownloadCenter(configuration: fixture.configuration)
            let paused = await first.download(episode: "12", from: url, to: fixture.directory)
            await paused.waitForBytes(100_000)
            await paused.pause()
            // The app ends (here: the manager stops and gives its store up).
            await first.manager.invalidate()
            let center = try DownloadCenter(configuration: fixture.configuration)
            let episodes = await center.restoredEpisodes()
            let download = try #require(episodes["12"])
            #expect(download.currentProgress.bytesReceived == 100_000)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            _ = try resumingManager(store: fixture.file("other-store"))
        }
    }

    // BackgroundDownloads.md: the manager with a background session (on Linux, download tasks of
    // an ordinary session), the app delegate's and SwiftUI's wiring, and a completion handler.
    func backgroundManager(store: URL) throws -> DownloadManager {
        try DownloadManager(
            configuration: .init(identifier: "com.example.app.media.\(UUID().uuidString)") {
                $0.background = .init(sessionIdentifier: "com.example.app.media.background")
                #if !canImport(Darwin)
                    $0.background?.onUnsupportedPlatform = .useForegroundSession
                #endif
                $0.storage.directory = store
            })
    }

    func applicationHandleEvents(
        manager: DownloadManager, identifier: String, completionHandler: @escaping @MainActor @Sendable () -> Void
    ) {
        manager.handleEventsForBackgroundURLSession(identifier: identifier, completionHandler: completionHandler)
    }

    func backgroundTask(manager: DownloadManager, identifier: String) async {
        await manager.backgroundEventsHandled(forSessionIdentifier: identifier)
    }

    actor Library {
        private(set) var files: [String] = []
        func add(_ file: URL, episode: String?) { files.append("\(episode ?? "?"): \(file.lastPathComponent)") }
    }

    @Test func theBackgroundManagerDownloadsAndRunsItsCompletionHandler() async throws {
        try await withFixture(startsManager: false) { fixture in
            let manager = try backgroundManager(store: fixture.storeDirectory)
            let library = Library()
            let (added, adding) = AsyncStream<Void>.makeStream()
            manager.addCompletionHandler { download, file in
                await library.add(file, episode: download.request.metadata["episode"])
                adding.yield()
            }
            let body = Body.pattern(count: 10_000, seed: 73)
            let url = fixture.serve("/episode7.mp3", body)
            let download = await manager.download(
                DownloadRequest(URLRequest(url: url), to: .directory(fixture.directory), metadata: ["episode": "7"]))
            try body.expectMatches(try await download.fileURL)
            var iterator = added.makeAsyncIterator()
            await iterator.next()
            #expect(await library.files == ["7: episode7.mp3"])
            // Another session's events are not this manager's: both return at once.
            applicationHandleEvents(manager: manager, identifier: "another.session") {}
            await backgroundTask(manager: manager, identifier: "another.session")
        }
    }

    @Test func theQuickStartDownloadsAFile() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 100_000, seed: 70)
            let url = fixture.serve("/quick.bin", body)
            let file = try await quickStart(
                url: url, downloads: fixture.directory, configuration: fixture.configuration)
            #expect(file.lastPathComponent == "quick.bin")
            try body.expectMatches(file)
        }
    }

    @Test func theGettingStartedCodeRuns() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 100_000, seed: 71)
            let url = fixture.serve("/movie.mp4", body)
            let manager = try configuredManager(store: fixture.storeDirectory)
            let file = try await gettingStarted(manager: manager, url: url, downloads: fixture.directory)
            try body.expectMatches(file)
            try body.expectMatches(fixture.file("movie.mp4"))
        }
    }
}
