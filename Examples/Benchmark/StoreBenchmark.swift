import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `downstream-benchmark store [--count 10000] [--directory DIR]`: the cost of the store.
/// Enqueues `count` new downloads (each written to the store; paused, so that no request goes
/// out), then makes a new manager with the same identifier, which restores them all. The store
/// goes in a new directory under DIR (default: the temporary directory).
struct StoreBenchmark {
    let count: Int
    let directory: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        count = max(1, options.int("count", default: 10_000))
        directory =
            options.string("directory").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
    }

    func run() async -> Int32 {
        do {
            return try await measure()
        } catch {
            print("store benchmark failed: \(error)")
            return 1
        }
    }

    private func measure() async throws -> Int32 {
        let root = directory.appendingPathComponent("downstream-store-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let configuration = DownloadManager.Configuration(identifier: "store-benchmark") {
            $0.storage.directory = root.appendingPathComponent("store")
        }
        let clock = ContinuousClock()
        let files = root.appendingPathComponent("files")

        // Enqueue.
        var enqueue = Duration.zero
        do {
            let manager = try DownloadManager(configuration: configuration)
            let start = clock.now
            for index in 0..<count {
                let url = URL(string: "http://127.0.0.1:9/file-\(index).bin")!
                await manager.download(
                    DownloadRequest(
                        URLRequest(url: url), to: .directory(files), metadata: ["index": String(index)]),
                    startsPaused: true)
            }
            enqueue = start.duration(to: clock.now)
        }

        // Restore.
        let start = clock.now
        let manager = try DownloadManager(configuration: configuration)
        let restore = start.duration(to: clock.now)
        let restored = await manager.downloads.count
        guard restored == count else {
            print("restored \(restored) of \(count) downloads")
            return 1
        }

        let perEnqueue = enqueue / count
        let perRestore = restore / count
        print("Downstream store benchmark: \(count) downloads, store in \(root.path)")
        print("enqueue \(count) new downloads:    \(format(enqueue)) s  (\(microseconds(perEnqueue)) µs each)")
        print("restore \(count) stored downloads: \(format(restore)) s  (\(microseconds(perRestore)) µs each)")
        let met = enqueue < .seconds(1) && restore < .seconds(1)
        print("target: each under 1 s: \(met ? "met" : "MISSED")")
        return met ? 0 : 3
    }

    private func format(_ duration: Duration) -> String {
        String(format: "%.3f", ChildRun.seconds(duration))
    }

    private func microseconds(_ duration: Duration) -> String {
        String(format: "%.1f", ChildRun.seconds(duration) * 1e6)
    }
}
