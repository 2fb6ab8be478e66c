import Downstream
import DownstreamTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `downstream-benchmark queue [--count 10000] [--size 4096] [--limit 8] [--runs 3]
/// [--directory DIR] [--only downstream|plain]`: many small downloads.
///
/// 1. The queue: `count` downloads are enqueued in a manager whose limit is 0, so that all of
///    them wait; the time that takes, and the growth of resident memory divided by `count`: what
///    the manager holds for one queued download, beyond the URL and destination the app made.
/// 2. The drain: `count` files of `size` bytes through the loopback server, `limit` at once,
///    through Downstream (enqueue everything, await every file) and through a plain URLSession
///    task group (at most `limit` `data(from:)` calls at once, each file written with POSIX
///    `open`/`write`, without the `fsync` of Foundation's file writing), alternately, `runs`
///    times. The ratio is the plain time over Downstream's: 1 is as fast, more is faster.
///
/// Files (and the manager's store) go under `--directory` (the temporary directory by default),
/// and are deleted at the end: on ext4, creating files is much slower for about 30 s after many
/// were deleted, so back-to-back runs measure slower.
/// `--only` runs one side of the drain, for profiling.
struct QueueBenchmark {
    let count: Int
    let size: Int
    let limit: Int
    let runs: Int
    let root: URL
    let only: String?

    init(arguments: [String]) {
        let options = Options(arguments)
        count = max(1, options.int("count", default: 10_000))
        size = max(1, options.int("size", default: 4096))
        limit = max(1, options.int("limit", default: 8))
        runs = max(0, options.int("runs", default: 3))
        let base = options.string("directory").map { URL(fileURLWithPath: $0, isDirectory: true) }
        root = (base ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("downstream-queue-\(getpid())", isDirectory: true)
        only = options.string("only")
    }

    func run() async -> Int32 {
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            return try await measure()
        } catch {
            print("queue benchmark failed: \(error)")
            return 1
        }
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        server.setRoute("/tiny", Route(body: .pattern(count: Int64(size), seed: 9)))
        print("Downstream queue benchmark: \(count) downloads of \(size) bytes over loopback, limit \(limit)")
        print("files and store in \(root.path)")

        let (enqueue, perDownload) = try await measureQueue(server: server)
        let each = String(format: "%.1f", ChildRun.seconds(enqueue) / Double(count) * 1e6)
        print("enqueue \(count) downloads:       \(format(enqueue)) s (\(each) µs each)")
        print("memory per queued download:    \(perDownload) bytes (target: under 2048)")
        guard runs > 0 else { return perDownload < 2048 ? 0 : 3 }

        var ratios: [Double] = []
        var ours: [Duration] = []
        var plain: [Duration] = []
        for run in 0..<runs {
            let directory = root.appendingPathComponent("run\(run)", isDirectory: true)
            if only != "downstream" {
                plain.append(
                    try await drainWithURLSession(server: server, directory: directory.appendingPathComponent("plain")))
            }
            if only != "plain" {
                ours.append(
                    try await drainWithDownstream(
                        server: server, directory: directory.appendingPathComponent("downstream")))
            }
            if let plainTime = plain.last, let ourTime = ours.last, plain.count == ours.count {
                ratios.append(ChildRun.seconds(plainTime) / ChildRun.seconds(ourTime))
            }
        }
        if !plain.isEmpty {
            print("drain, URLSession task group:  \(format(median(plain))) s (median of \(plain.count))")
        }
        if !ours.isEmpty { print("drain, Downstream:             \(format(median(ours))) s (median of \(ours.count))") }
        guard !ratios.isEmpty else { return 0 }
        let ratio = ratios.sorted()[ratios.count / 2]
        let met = ratio >= 0.9 && perDownload < 2048
        print(
            "Downstream drains at \(String(format: "%.2f", ratio))x the plain URLSession rate (median of per-run "
                + "ratios, target >= 0.9); targets \(met ? "met" : "MISSED")")
        return met ? 0 : 3
    }

    /// Enqueues `count` downloads that all wait (limit 0); returns the time that took and the
    /// manager's resident memory per download.
    private func measureQueue(server: TestServer) async throws -> (Duration, Int) {
        let directory = root.appendingPathComponent("queued", isDirectory: true)
        let requests = (0..<count).map { index in
            DownloadRequest(
                url: server.url("/tiny?i=\(index)"),
                to: .file(directory.appendingPathComponent("\(index).bin", isDirectory: false)))
        }
        var configuration = configuration(store: root.appendingPathComponent("queued-store", isDirectory: true))
        configuration.scheduling.maximumConcurrentDownloads = 0
        let manager = try DownloadManager(configuration: configuration)
        let before = ChildRun.residentBytes()
        let clock = ContinuousClock()
        let start = clock.now
        for request in requests {
            await manager.download(request)
        }
        let enqueue = start.duration(to: clock.now)
        let after = ChildRun.residentBytes()
        // Left on disk until the end: on ext4, files deleted in the last 30 s or so make creating
        // new ones much slower, which would weigh on what is measured next.
        await manager.invalidate()
        return (enqueue, (after - before) / count)
    }

    private func drainWithDownstream(server: TestServer, directory: URL) async throws -> Duration {
        let manager = try DownloadManager(
            configuration: configuration(store: directory.appendingPathComponent(".store", isDirectory: true)))
        let clock = ContinuousClock()
        let start = clock.now
        var downloads: [Download] = []
        downloads.reserveCapacity(count)
        for index in 0..<count {
            let file = directory.appendingPathComponent("\(index).bin", isDirectory: false)
            downloads.append(await manager.download(from: server.url("/tiny?i=\(index)"), to: .file(file)))
        }
        for download in downloads {
            _ = try await download.fileURL
        }
        let elapsed = start.duration(to: clock.now)
        await manager.invalidate()
        return elapsed
    }

    private func drainWithURLSession(server: TestServer, directory: URL) async throws -> Duration {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                if index >= limit {
                    try await group.next()
                }
                let url = server.url("/tiny?i=\(index)")
                let path = directory.appendingPathComponent("\(index).bin", isDirectory: false).path
                group.addTask {
                    let (data, _) = try await session.data(from: url)
                    try Self.save(data, to: path)
                }
            }
            try await group.waitForAll()
        }
        return start.duration(to: clock.now)
    }

    /// Writes `data` to a new file at `path`, as plainly as it gets (no `fsync`).
    private static func save(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw POSIXError(.EIO) }
    }

    private func configuration(store: URL) -> DownloadManager.Configuration {
        DownloadManager.Configuration(identifier: "queue-benchmark-\(UUID().uuidString)") {
            $0.storage.directory = store
            $0.scheduling.maximumConcurrentDownloads = limit
            $0.scheduling.maximumConcurrentDownloadsPerHost = limit
        }
    }

    private func median(_ durations: [Duration]) -> Duration {
        durations.sorted()[durations.count / 2]
    }

    private func format(_ duration: Duration) -> String {
        String(format: "%.3f", ChildRun.seconds(duration))
    }
}
