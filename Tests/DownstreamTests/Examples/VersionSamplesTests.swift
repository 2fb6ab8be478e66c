import Downstream
import DownstreamTesting
import Foundation
import Testing

/// What OneFileOneVersion.md shows, run against the loopback server (the article's own text is
/// type-checked by `.ci/check-samples`).
@Suite(.timeLimit(.minutes(2)))
struct VersionSamplesTests {
    /// The app's own service that signs download links.
    actor Links {
        let server: TestServer
        var handedOut = 0

        init(server: TestServer) {
            self.server = server
        }

        func freshLink(for fileID: String) -> URL? {
            handedOut += 1
            return server.url("/files/\(fileID)?sig=\(handedOut + 1)")
        }
    }

    // Fresh links for expired ones, and a longer wait for the network.
    func configuration(identifier: String, links: Links) -> DownloadManager.Configuration {
        let configuration = DownloadManager.Configuration(identifier: identifier) {
            $0.urlRefresh.handler = { rejected in
                await links.freshLink(for: rejected.metadata["fileID"] ?? "")
            }
            $0.connectivity.maximumWait = .seconds(30 * 60)
        }
        return configuration
    }

    // Mirrors.
    func fromMirrors(
        manager: DownloadManager, primary: URL, mirrors: [URL], downloads: URL, publishedSHA256: String
    ) async throws -> URL? {
        var request = DownloadRequest(url: primary, to: .directory(downloads))
        request.mirrors = mirrors
        request.expectedDigest = .sha256(publishedSHA256)
        do {
            return try await manager.download(request).fileURL
        } catch let error as DownloadError where error.kind == .allURLsFailed {
            for failure in error.urlFailures {
                print(failure.url, failure.error.reason)
            }
            return nil
        }
    }

    // An existing file.
    func refreshedFeed(manager: DownloadManager, feedURL: URL, feedFile: URL) async throws -> URL {
        try await manager.downloadFile(from: feedURL, to: .file(feedFile, ifExists: .replaceIfChanged))
    }

    // Waiting for the network.
    func followNetwork(of download: Download, offline: @escaping @Sendable (Bool) -> Void) async {
        for await event in download.events {
            offline(event.state == .waitingForNetwork)
        }
    }

    static let body = Body.pattern(count: 300_000, seed: 950)

    static func sha256(_ body: Body) -> String {
        ExistingFileTests.sha256(body.bytes(0..<body.count)).hexValue
    }

    /// What the sample told, collected.
    final class Told: @unchecked Sendable {
        // Safe: `values` is only touched while `lock` is held.
        private let lock = NSLock()
        private var values: [Bool] = []

        func append(_ value: Bool) { lock.withLock { values.append(value) } }
        var all: [Bool] { lock.withLock { values } }
    }

    @Test func aRefusedLinkIsReplacedByAFreshOne() async throws {
        try await withFixture { fixture in
            fixture.serve("/files/42", Self.body) { $0.queryExpiresAfter = 100_000 }
            var configuration = configuration(identifier: "samples-\(UUID())", links: Links(server: fixture.server))
            configuration.storage.directory = fixture.storeDirectory.appendingPathComponent("samples")
            configuration.retry.initialDelay = .zero
            let manager = try DownloadManager(configuration: configuration)
            var request = DownloadRequest(url: fixture.server.url("/files/42?sig=1"), to: .directory(fixture.directory))
            request.metadata = ["fileID": "42"]
            try Self.body.expectMatches(try await manager.download(request).fileURL)
            #expect(fixture.server.requests("/files/42").map(\.status).filter { $0 == 403 }.count >= 1)
        }
    }

    @Test func mirrorsTakeOverAndFailuresAreListed() async throws {
        try await withFixture { fixture in
            fixture.serve("/gone.iso", Self.body) { $0.faults = [.status(404)] }
            fixture.serve("/mirror.iso", Self.body)
            let file = try await fromMirrors(
                manager: fixture.manager, primary: fixture.server.url("/gone.iso"),
                mirrors: [fixture.server.url("/mirror.iso")], downloads: fixture.directory,
                publishedSHA256: Self.sha256(Self.body))
            try Self.body.expectMatches(try #require(file))

            fixture.serve("/gone.iso", Self.body) { $0.faults = [.status(404)] }
            fixture.serve("/mirror.iso", Self.body) { $0.faults = [.status(503)] }
            let none = try await fromMirrors(
                manager: fixture.manager, primary: fixture.server.url("/gone.iso"),
                mirrors: [fixture.server.url("/mirror.iso")], downloads: fixture.file("other"),
                publishedSHA256: Self.sha256(Self.body))
            #expect(none == nil)
        }
    }

    @Test func aFeedIsDownloadedAgainOnlyWhenItChanged() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/feed.xml", Self.body)
            let first = try await refreshedFeed(
                manager: fixture.manager, feedURL: url, feedFile: fixture.file("feed.xml"))
            let second = try await refreshedFeed(
                manager: fixture.manager, feedURL: url, feedFile: fixture.file("feed.xml"))
            #expect(first == second)
            #expect(fixture.server.requests("/feed.xml").map(\.status) == [206, 304])
        }
    }

    @Test func theEventsSayWhenTheDownloadWaitsForTheNetwork() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/online.bin", Self.body)
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let told = Told()
            await followNetwork(of: download) { told.append($0) }
            #expect(!told.all.isEmpty && !told.all.contains(true))
        }
    }
}
