@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// What an integration test owns: a loopback server, a temporary directory for files, a store
/// directory, and a manager with an identifier of its own. Made and torn down by
/// ``withFixture(startsManager:_:_:)``.
struct Fixture {
    let server: TestServer
    let directory: URL
    let storeDirectory: URL
    let configuration: DownloadManager.Configuration
    /// The fixture's manager; nil when the test makes its own (see ``makeManager()``).
    let manager: DownloadManager!

    /// A manager with the fixture's identifier and store: a relaunch, once every earlier manager
    /// of the fixture and its downloads are gone.
    func makeManager(_ configure: (inout DownloadManager.Configuration) -> Void = { _ in }) throws -> DownloadManager {
        var configuration = configuration
        configure(&configuration)
        return try DownloadManager(configuration: configuration)
    }

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

    /// The first byte a request that continues `kept` bytes on disk asks for: every continuation
    /// asks for the overlap before them again, to compare it with the disk's.
    func rangeStart(continuing kept: Int64) -> Int64 {
        kept - min(kept, Int64(configuration.resumption.overlapLength))
    }

    /// A path inside the test's directory.
    func file(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// The names in `directory` (the test's own directory by default), sorted.
    func listing(_ directory: URL? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (directory ?? self.directory).path)) ?? []).sorted()
    }

    /// What the store holds for downloads: the names of its files but its lock and its journal
    /// (records of their own, and records set aside), and `journal:` and the identifier of each
    /// download whose record is in the journal.
    func storedRecords() -> [String] {
        let files = listing(storeDirectory).filter { name in
            !name.hasPrefix(".") && name != StoreJournal.fileName
                && !POSIXFile.isDirectory(atPath: storeDirectory.appendingPathComponent(name).path)
        }
        var inJournal: [String] = []
        StoreJournal.forEachRecord(in: storeDirectory.path) { id, _ in inJournal.append("journal:\(id)") }
        return files + inJournal.sorted()
    }

    /// The record of download `id`, as it is on disk (in a file of its own or in the journal).
    func storedRecord(_ id: Download.ID) -> StoredDownload? {
        DownloadStore.records(in: storeDirectory).first { $0.id == id }
    }

    /// The file that holds download `id`'s record: its own, or the store's journal.
    func fileHoldingRecord(_ id: Download.ID) -> URL {
        POSIXFile.exists(recordFile(id)) ? recordFile(id) : storeDirectory.appendingPathComponent(StoreJournal.fileName)
    }

    /// The file of download `id`'s record.
    func recordFile(_ id: Download.ID) -> URL {
        storeDirectory.appendingPathComponent("\(id.rawValue.uuidString).\(DownloadStore.recordExtension)")
    }

    /// Leaves in the store what a process that ended during a download of `url` to `destination`
    /// would: a record, changed by `configure`, and a partial file of the first `length` bytes of
    /// `body` (none if nil). Call it before making a manager.
    @discardableResult
    func leaveInterruptedDownload(
        of url: URL, to destination: Destination, partial body: Body?, length: Int64 = 0,
        _ configure: (inout StoredDownload) -> Void = { _ in }
    ) throws -> StoredDownload {
        let location = PartialLocation(
            url: url, destination: destination, partialsDirectory: configuration.storage.partialsDirectory)
        var record = StoredDownload(
            id: Download.ID(), request: DownloadRequest(url: url, to: destination), url: url, location: location)
        record.intent = .active
        if let body {
            try FileManager.default.createDirectory(
                at: location.partialURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try body.bytes(0..<length).writeWithoutSync(to: location.partialURL)
            record.resume.isResumable = true
            record.resume.validator = Validator(etag: "\"\(StableHash.hex(url.path))\"")
            record.resume.expectedLength = body.count
            record.resume.durableLength = length
        }
        configure(&record)
        let store = try DownloadStore(identifier: configuration.identifier, directory: storeDirectory)
        _ = try store.create(record)
        return record
    }
}

/// Runs `body` with a fresh server, directories and manager, and removes them afterwards.
///
/// - Parameter startsManager: whether to make the fixture's manager; tests that relaunch make
///   their own with ``Fixture/makeManager(_:)``.
func withFixture<Result>(
    startsManager: Bool = true,
    _ configure: (inout DownloadManager.Configuration) -> Void = { _ in },
    _ body: (Fixture) async throws -> Result
) async throws -> Result {
    let server = try TestServer()
    defer { server.shutdown() }
    let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("downstream-tests-\(UUID().uuidString)", isDirectory: true)
    let directory = root.appendingPathComponent("files", isDirectory: true)
    let storeDirectory = root.appendingPathComponent("store", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    var configuration = DownloadManager.Configuration(identifier: "test-\(UUID().uuidString)")
    configuration.storage.directory = storeDirectory
    configuration.progress.interval = .milliseconds(10)
    // Failures are the subject of many tests: no retries unless a test asks for them.
    configuration.retry = .none
    // The tests say which requests a download makes, the same on every transport: in ranges of
    // 64 MiB, as Linux URLSession asks by default. (RangedRequestsTests checks the default
    // itself: one request on libcurl.)
    configuration.network.maximumBytesPerRequest = 64 << 20
    configure(&configuration)
    let fixture = Fixture(
        server: server, directory: directory, storeDirectory: storeDirectory, configuration: configuration,
        manager: startsManager ? try DownloadManager(configuration: configuration) : nil)
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
