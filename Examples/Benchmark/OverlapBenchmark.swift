import Downstream
import DownstreamTesting
import Foundation

/// What overlap verification costs: the same download in consecutive ranges (each continuation
/// compares the overlap, with or without validators), with overlaps of 0, 64 KiB and 1 MiB, on a
/// link of a given speed; runs interleaved, medians. The extra bytes and time, divided by the
/// continuations, are the cost per resume. `--validators yes` serves a strong ETag and
/// `Last-Modified` (each continuation then carries `If-Range` too).
struct OverlapBenchmark {
    let mebibytes: Int
    let rangeMiB: Int
    let runs: Int
    let megabytesPerSecond: Int
    let directory: URL
    let servesValidators: Bool

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = options.int("mib", default: 256)
        rangeMiB = max(1, options.int("range-mib", default: 4))
        runs = max(1, options.int("runs", default: 5))
        megabytesPerSecond = options.int("mbps", default: 100)
        directory = Benchmark.workDirectory(options, name: "overlap")
        servesValidators = options.string("validators") == "yes"
    }

    func run() async -> Int32 {
        await Benchmark.run(in: directory, measure)
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 13)
        var route = Route(body: body)
        route.etag = servesValidators ? "\"5f3a1c-10000000\"" : nil
        route.lastModified = servesValidators ? "Sun, 01 Nov 2026 10:00:00 GMT" : nil
        if megabytesPerSecond > 0 {
            route.bytesPerSecond = megabytesPerSecond * 1_000_000
        }
        server.setRoute("/file.bin", route)
        let continuations = (mebibytes + rangeMiB - 1) / rangeMiB - 1
        let link = megabytesPerSecond > 0 ? "\(megabytesPerSecond) MB/s" : "unthrottled"
        print(
            "Overlap benchmark: \(mebibytes) MiB \(servesValidators ? "with" : "without") validators in \(rangeMiB) MiB ranges "
                + "(\(continuations) continuations), \(link) loopback, \(runs) interleaved runs; medians")
        let overlaps = [0, 64 << 10, 1 << 20]
        var walls: [Int: [Double]] = [:]
        var extraBytes: [Int: Int64] = [:]
        for run in 0..<runs {
            // Each run starts with another overlap, so that a drift of the machine weighs on all.
            let order = overlaps.indices.map { overlaps[($0 + run) % overlaps.count] }
            for overlap in order {
                let before = server.totalBodyBytesSent
                let wall = try await download(server.url("/file.bin"), overlap: overlap, run: run, body: body)
                walls[overlap, default: []].append(wall)
                extraBytes[overlap] = server.totalBodyBytesSent - before - body.count
            }
        }
        let baseline = Benchmark.middle(walls[0]!)
        print("overlap     wall s   ratio   extra bytes   per continuation: bytes   ms")
        for overlap in overlaps {
            let wall = Benchmark.middle(walls[overlap]!)
            let extra = extraBytes[overlap] ?? 0
            let perResume = continuations > 0 ? (wall - baseline) / Double(continuations) * 1000 : 0
            print(
                Benchmark.pad(overlap == 0 ? "off" : "\(overlap >> 10) KiB", 12)
                    + Benchmark.pad(Benchmark.format(wall), 9)
                    + Benchmark.pad(Benchmark.format(wall / baseline) + "x", 8) + Benchmark.pad(String(extra), 14)
                    + Benchmark.pad(String(continuations > 0 ? extra / Int64(continuations) : 0), 26)
                    + Benchmark.format(perResume))
        }
        return 0
    }

    private func download(_ url: URL, overlap: Int, run: Int, body: Body) async throws -> Double {
        let store = directory.appendingPathComponent("store-\(overlap)-\(run)")
        let configuration = DownloadManager.Configuration(identifier: "overlap-\(overlap)-\(run)") {
            $0.storage.directory = store
            $0.network.maximumBytesPerRequest = Int64(rangeMiB) << 20
            $0.resumption.overlapLength = overlap
        }
        let manager = try DownloadManager(configuration: configuration)
        let destination = directory.appendingPathComponent("file-\(overlap).bin")
        let start = ContinuousClock.now
        let file = try await manager.downloadFile(from: url, to: .file(destination))
        let wall = (ContinuousClock.now - start).seconds
        if let mismatch = try body.firstMismatch(inFileAt: file) {
            throw BenchmarkError("a wrong file with overlap \(overlap) (first difference at byte \(mismatch))")
        }
        try FileManager.default.removeItem(at: file)
        await manager.invalidate()
        try? FileManager.default.removeItem(at: store)
        return wall
    }

}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
