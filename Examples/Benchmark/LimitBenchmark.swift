import Downstream
import DownstreamTesting
import Foundation

/// `downstream-benchmark limit [--rate 5000000] [--seconds 10] [--count 8] [--directory DIR]`:
/// whether a bandwidth limit holds. One download under a manager limit of `rate` bytes per
/// second, then `count` downloads sharing it; after a warm-up second, the bytes each receives in
/// a window of `seconds` are measured from its progress. Targets (issue 14): the rate within ±5 %
/// of the limit; each of the shared downloads within ±15 % of its fair share.
struct LimitBenchmark {
    let rate: Int
    let seconds: Int
    let count: Int
    let directory: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        rate = max(1, options.int("rate", default: 5_000_000))
        seconds = max(1, options.int("seconds", default: 10))
        count = max(2, options.int("count", default: 8))
        directory = Benchmark.workDirectory(options, name: "limit")
    }

    func run() async -> Int32 {
        await Benchmark.run(in: directory, measure)
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        // More than the window can take, so that no download ends inside it.
        let size = Int64(rate) * Int64(seconds + 5)
        for index in 0..<count {
            server.setRoute("/file\(index).bin", Route(body: .pattern(count: size, seed: UInt64(index))))
        }
        print(
            "Limit benchmark: a manager limit of \(rate) bytes/s over loopback; bytes received in a"
                + " \(seconds) s window after a 1 s warm-up")
        var pass = true

        let single = try await window(server, downloads: 1)
        let singleRatio = Double(single[0]) / Double(seconds) / Double(rate)
        let singleMet = abs(singleRatio - 1) <= 0.05
        pass = pass && singleMet
        print(
            "1 download:  \(Benchmark.format(Double(single[0]) / Double(seconds) / 1e6)) MB/s = "
                + "\(Benchmark.format(singleRatio))x the limit (target within 5 %: \(singleMet ? "met" : "MISSED"))")

        let shared = try await window(server, downloads: count)
        let total = shared.reduce(0, +)
        let totalRatio = Double(total) / Double(seconds) / Double(rate)
        let shares = shared.map { Double($0) / (Double(total) / Double(count)) }
        let sharesMet = shares.allSatisfy { abs($0 - 1) <= 0.15 }
        let totalMet = abs(totalRatio - 1) <= 0.05
        pass = pass && sharesMet && totalMet
        print(
            "\(count) downloads: together \(Benchmark.format(totalRatio))x the limit (target within 5 %: "
                + "\(totalMet ? "met" : "MISSED")); each, of its fair share: "
                + shares.map { Benchmark.format($0) }.joined(separator: " ")
                + " (target within 15 %: \(sharesMet ? "met" : "MISSED"))")
        print("targets " + (pass ? "met" : "MISSED"))
        return pass ? 0 : 3
    }

    /// Starts `downloads` downloads under the limit and returns the bytes each received in the
    /// window.
    private func window(_ server: TestServer, downloads: Int) async throws -> [Int64] {
        let store = directory.appendingPathComponent("store-\(downloads)")
        let configuration = DownloadManager.Configuration(identifier: "limit-\(downloads)") {
            $0.storage.directory = store
            $0.network.maximumBytesPerSecond = rate
            $0.scheduling.maximumConcurrentDownloads = downloads
            $0.scheduling.maximumConcurrentDownloadsPerHost = downloads
            $0.network.maximumConnectionsPerHost = downloads
        }
        let manager = try DownloadManager(configuration: configuration)
        let received = (0..<downloads).map { _ in LatestBytes() }
        var started: [Download] = []
        for index in 0..<downloads {
            let destination = directory.appendingPathComponent("\(downloads)-\(index).bin")
            let download = await manager.download(from: server.url("/file\(index).bin"), to: .file(destination))
            started.append(download)
            let latest = received[index]
            Task {
                for await progress in download.progress { latest.set(progress.bytesReceived) }
            }
        }
        try await Task.sleep(for: .seconds(1))
        let before = received.map { $0.value }
        try await Task.sleep(for: .seconds(seconds))
        let after = received.map { $0.value }
        for download in started { await download.cancel() }
        await manager.invalidate()
        try? FileManager.default.removeItem(at: store)
        return zip(before, after).map { $1 - $0 }
    }
}

/// The latest byte count a progress stream told.
private final class LatestBytes: @unchecked Sendable {
    // Safe: `bytes` is only touched under `lock`.
    private let lock = NSLock()
    private var bytes: Int64 = 0

    var value: Int64 { lock.withLock { bytes } }

    func set(_ value: Int64) {
        lock.withLock { bytes = value }
    }
}
