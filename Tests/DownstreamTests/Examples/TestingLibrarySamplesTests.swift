import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code in DownstreamTesting's documentation comments, kept here so that it compiles, through
/// the public API only, and run where it can be.
@Suite(.timeLimit(.minutes(1)))
struct TestingLibrarySamplesTests {
    // TestServer's documentation (`download` stands for the app's code).
    func testServer(download: (URL) async throws -> Void) async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        var route = Route(body: .pattern(count: 10_000_000))
        route.etag = "\"v1\""
        route.faults = [.closeAfter(1_000_000)]  // the first response ends after 1,000,000 bytes
        server.setRoute("/file", route)
        try await download(server.url("/file"))
        // (Downstream asks for the 64 KiB before the bytes on disk again, to compare them.)
        #expect(server.requests("/file").last?.rangeStart == 934_464)  // 1,000,000 minus 64 KiB
    }

    // TestServer.init(sharedGauge:listening:)'s documentation.
    func notListeningYet(download: (URL) async throws -> Void) async throws {
        let server = try TestServer(listening: false)
        defer { server.shutdown() }
        try? await download(server.url("/file"))
        try server.startListening()
        try await download(server.url("/file"))
    }

    // Route's documentation.
    func route(server: TestServer) {
        var route = Route(body: .pattern(count: 1 << 20))
        route.etag = "\"v1\""
        route.faults = [.closeAfter(1000)]  // the first request breaks after 1000 bytes
        server.setRoute("/file.bin", route)
    }

    // DigestAuthentication's documentation.
    func digestRoute(server: TestServer) {
        var route = Route(body: .pattern(count: 1 << 20))
        route.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
        route.requiredDigest?.algorithms = ["SHA-256", "MD5"]
        server.setRoute("/private.bin", route)
    }

    // Fault's documentation.
    func faults() -> Route {
        var route = Route(body: .pattern(count: 1_000_000))
        // The first request breaks after 300,000 bytes, the second is answered 503, the third works.
        route.faults = [.resetAfter(300_000), .status(503, headers: ["Retry-After": "1"])]
        return route
    }

    // InFlightGauge's documentation (`download` stands for the app's code).
    func sharedGauge(download: ([TestServer]) async throws -> Void) async throws {
        let gauge = InFlightGauge()
        let hosts = try (0..<3).map { _ in try TestServer(sharedGauge: gauge) }
        try await download(hosts)
        await gauge.waitForInFlight(4)
        #expect(gauge.maximum == 4)
    }

    // BackgroundSessionReplay's documentation.
    func replay(url: URL, downloads: URL, store: URL, body: Data) async throws -> URL {
        let replay = BackgroundSessionReplay()
        var configuration = DownloadManager.Configuration(identifier: "com.example.app.\(UUID())")
        configuration.storage.directory = store  // the test's own
        configuration.background = .init(sessionIdentifier: "com.example.app.background")
        replay.install(in: &configuration)
        let manager = try DownloadManager(configuration: configuration)

        let download = await manager.download(from: url, to: .directory(downloads))
        let task = try #require(await replay.startedTask(0))
        replay.write(task, totalBytes: 40_000, expectedBytes: 100_000)
        try replay.finish(task, body: body)  // the system wrote the file and hands it over
        let file = try await download.fileURL
        return file
    }

    @Test func theServerSampleSeesADownloadResume() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("samples-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let manager = try DownloadManager(
            configuration: .init(identifier: "samples-\(UUID().uuidString)") {
                $0.storage.directory = store.appendingPathComponent("store")
                $0.retry.initialDelay = .zero
            })
        try await testServer { url in
            _ = try await manager.downloadFile(from: url, to: .directory(store))
        }
    }

    @Test func theReplaySampleDeliversTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samples-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Body.pattern(count: 100_000).bytes(0..<100_000)
        let file = try await replay(
            url: URL(string: "https://example.com/episode.mp3")!, downloads: directory,
            store: directory.appendingPathComponent("store"), body: body)
        #expect(file.lastPathComponent == "episode.mp3")
        #expect(try Data(contentsOf: file) == body)
    }
}
