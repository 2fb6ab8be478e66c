@_spi(Testing) @testable import Downstream
import DownstreamTestServer
import Foundation
import Testing

/// What an integration test owns: a loopback server, a temporary directory and a manager with
/// an identifier of its own. Made and torn down by ``withFixture(_:_:)``.
struct Fixture {
    let server: TestServer
    let directory: URL
    let manager: DownloadManager

    /// Serves `body` at `path`, with a strong ETag, changed by `configure`.
    @discardableResult
    func serve(
        _ path: String, _ body: Body, _ configure: (inout Route) -> Void = { _ in }
    ) -> URL {
        var route = Route(body: body)
        route.etag = "\"\(StableHash.hex(path))\""
        route.lastModified = "Sun, 01 Nov 2026 10:00:00 GMT"
        configure(&route)
        server.setRoute(path, route)
        return server.url(path)
    }

    /// A path inside the test's directory.
    func file(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// The names in `directory` (the test's own directory by default), sorted.
    func listing(_ directory: URL? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (directory ?? self.directory).path)) ?? []).sorted()
    }
}

/// Runs `body` with a fresh server, directory and manager, and removes them afterwards.
func withFixture<Result>(
    _ configure: (inout DownloadManager.Configuration) -> Void = { _ in },
    _ body: (Fixture) async throws -> Result
) async throws -> Result {
    let server = try TestServer()
    defer { server.shutdown() }
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("downstream-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = DownloadManager.Configuration(identifier: "test-\(UUID().uuidString)")
    configuration.progress.interval = .milliseconds(10)
    configure(&configuration)
    let fixture = Fixture(server: server, directory: directory, manager: DownloadManager(configuration: configuration))
    return try await body(fixture)
}

extension Download {
    /// Returns once the download has received at least `count` bytes (or has ended).
    func waitForBytes(_ count: Int64) async {
        for await progress in progress where progress.bytesReceived >= count {
            return
        }
    }

    /// Returns the first event (replayed or new) that matches `predicate`, or nil if the
    /// download ended without one.
    @discardableResult
    func waitForEvent(where predicate: (DownloadEvent) -> Bool) async -> DownloadEvent? {
        for await event in events where predicate(event) {
            return event
        }
        return nil
    }

    /// Every event so far, once the download has ended.
    func allEvents() async -> [DownloadEvent] {
        var events: [DownloadEvent] = []
        for await event in self.events { events.append(event) }
        return events
    }
}

extension Body {
    /// Expects the file at `url` to hold exactly this body.
    func expectMatches(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mismatch = try firstMismatch(inFileAt: url)
        #expect(
            mismatch == nil, "the file differs from the served body at byte \(mismatch ?? -1)",
            sourceLocation: sourceLocation)
    }
}

/// The length of the file at `url`, or nil.
func fileLength(_ url: URL) -> Int64? {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
}
