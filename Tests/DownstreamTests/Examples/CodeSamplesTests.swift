import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What README.md and the DocC articles show, run against the loopback server: the articles'
/// code as a program would hold it, with the test's configuration. The articles' own text is
/// type-checked by `.ci/check-samples`; these tests prove that it does what the text says.
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

    // AuthenticationSettings.requestAdapter's documentation: credentials the store does not keep.
    actor Tokens {
        func current(for url: URL) throws -> String { "token for \(url.host ?? "")" }
    }

    func adaptedConfiguration(tokens: Tokens) -> DownloadManager.Configuration {
        var configuration = DownloadManager.Configuration(identifier: "com.example.app")
        configuration.authentication.requestAdapter = { adaptation in
            ["Authorization": "Bearer \(try await tokens.current(for: adaptation.url))"]
        }
        return configuration
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

    // DownloadError's documentation: one made for a test, read back as Downstream's own are.
    @Test func anErrorMadeForATestReadsAsItsKindSays() {
        let notFound = DownloadError(.httpStatus, reason: "Not Found", statusCode: 404)
        #expect(notFound.kind == .httpStatus)
        #expect(notFound.statusCode == 404)
        #expect(!notFound.isResumable)
        #expect(notFound.description.hasPrefix("The server answered HTTP 404 (Not Found)."))
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

    // BackgroundDownloads.md: the manager with a background session (in the test, download tasks
    // of an ordinary session on every platform: a background session's run in a system daemon),
    // the app delegate's and SwiftUI's wiring, and a completion handler.
    func backgroundManager(store: URL) throws -> DownloadManager {
        var configuration = DownloadManager.Configuration(identifier: "com.example.app.media.\(UUID().uuidString)") {
            $0.background = .init(sessionIdentifier: "com.example.app.media.background")
            $0.storage.directory = store
        }
        SystemEngineTests.useOrdinarySession(&configuration)
        return try DownloadManager(configuration: configuration)
    }

    @MainActor
    func applicationHandleEvents(manager: DownloadManager, identifier: String, completionHandler: @escaping () -> Void)
    {
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
            await applicationHandleEvents(manager: manager, identifier: "another.session") {}
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

    // ManagingManyDownloads.md: a season queued under limits, with priorities.
    struct Episode {
        let url: URL
        let isNext: Bool
    }

    func queueSeason(_ episodes: [Episode], into episodesDirectory: URL, store: URL) async throws -> DownloadManager {
        let manager = try DownloadManager(
            configuration: .init(identifier: "com.example.app.episodes.\(UUID().uuidString)") {
                $0.scheduling.maximumConcurrentDownloads = 8
                $0.scheduling.maximumConcurrentDownloadsPerHost = 3
                $0.storage.directory = store
            })
        await manager.setLimits(maximumConcurrentDownloads: 0)  // hold everything
        for episode in episodes {
            var request = DownloadRequest(url: episode.url, to: .directory(episodesDirectory))
            request.priority = episode.isNext ? .high : .normal
            await manager.download(request)
        }
        return manager
    }

    // ManagingManyDownloads.md: an album as a group.
    func downloadAlbum(_ tracks: [URL], manager: DownloadManager, into albumDirectory: URL) async throws -> [URL] {
        let album = await manager.downloadGroup(
            tracks.map { DownloadRequest(url: $0, to: .directory(albumDirectory)) })

        Task {
            for await progress in album.progress {
                print("\(progress.count(.completed)) of \(progress.downloadCount) tracks")
            }
        }
        let files = try await album.fileURLs  // throws as soon as one track fails
        return files
    }

    // ManagingManyDownloads.md: retries.
    func retryingManager(store: URL) throws -> DownloadManager {
        try DownloadManager(
            configuration: .init(identifier: "com.example.app.maps.\(UUID().uuidString)") {
                $0.retry.maximumRetries = 5
                $0.retry.initialDelay = .seconds(2)
                $0.retry.transientStatusCodes.insert(520)
                $0.storage.directory = store
            })
    }

    // ManagingManyDownloads.md: one sequence for a list (the list and its header print here).
    func followEverything(manager: DownloadManager) {
        Task {
            for await update in manager.events {
                print(update.download.id, update.download.state)
            }
        }
        Task {
            for await totals in manager.progress {
                print(
                    "\(totals.count(.running)) running, \(totals.count(.queued)) queued",
                    totals.fractionCompleted ?? 0)
            }
        }
    }

    @Test func theSeasonWaitsUntilTheLimitsAreRaisedThenArrivesWhole() async throws {
        try await withFixture(startsManager: false) { fixture in
            let bodies = (0..<6).map { Body.pattern(count: 50_000 + $0, seed: 80 + UInt64($0)) }
            let episodes = bodies.enumerated().map { index, body in
                Episode(url: fixture.serve("/episode\(index).mp4", body), isNext: index == 5)
            }
            let manager = try await queueSeason(episodes, into: fixture.directory, store: fixture.storeDirectory)
            followEverything(manager: manager)
            let downloads = await manager.downloads
            #expect(downloads.allSatisfy { $0.state == .queued })
            #expect(downloads.last?.priority == .high)

            await manager.setLimits(maximumConcurrentDownloads: 8)  // and go
            for (download, body) in zip(downloads, bodies) {
                try body.expectMatches(try await download.fileURL)
            }
            #expect(manager.currentProgress.count(.completed) == 6)
            _ = try retryingManager(store: fixture.file("maps-store"))
        }
    }

    @Test func theAlbumArrivesAsAGroup() async throws {
        try await withFixture { fixture in
            let bodies = (0..<3).map { Body.pattern(count: 40_000, seed: 90 + UInt64($0)) }
            let tracks = bodies.enumerated().map { index, body in fixture.serve("/track\(index).mp3", body) }
            let files = try await downloadAlbum(tracks, manager: fixture.manager, into: fixture.directory)
            #expect(files.map(\.lastPathComponent) == ["track0.mp3", "track1.mp3", "track2.mp3"])
            for (file, body) in zip(files, bodies) {
                try body.expectMatches(file)
            }
        }
    }
}
