import Downstream
import DownstreamTesting
import Foundation

/// `downstream-benchmark segments [--mib 512] [--mbps 20] [--runs 1] [--directory DIR]`: one
/// file from a server that paces each connection to `mbps` MB/s (as many servers and CDNs do),
/// over 1, 4 and 8 connections, each download in a child process of its own; in a rotating order,
/// `runs` times. Prints each one's wall time and peak memory, and the speed of 4 and 8
/// connections as ratios to 1 (medians of the runs' ratios); next to `aria2c -x4 -s4` when
/// aria2c is installed. Targets (issue 14): 4 connections ≥ 3.5×, 8 ≥ 6×, peak ≤ 48 MiB; (issue 21) 8
/// connections checkpointing as configured by default (256 KiB each) ≤ 1.03× the wall time of
/// every 8 MiB.
struct SegmentsBenchmark {
    let mebibytes: Int
    let bytesPerSecond: Int
    let runs: Int
    let root: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = max(1, options.int("mib", default: 512))
        bytesPerSecond = max(1, options.int("mbps", default: 20)) * 1_000_000
        runs = max(1, options.int("runs", default: 1))
        root = Benchmark.workDirectory(options, name: "segments")
    }

    func run() async -> Int32 {
        await Benchmark.run(in: root) { try await measure() }
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 14)
        var route = Route(body: body)
        route.etag = "\"segments\""
        route.bytesPerSecond = bytesPerSecond
        server.setRoute("/big.bin", route)
        print(
            "Segments benchmark: \(mebibytes) MiB over loopback from a server that paces each connection to"
                + " \(bytesPerSecond / 1_000_000) MB/s; each client in a child process; medians of \(runs) runs")
        // x8 again with each connection checkpointing after 8 MiB (before issue 21: the same as one
        // connection), to weigh what the default checkpoints per connection cost.
        var engines = ["x1", "x4", "x8", "x8-8MiB"]
        if let aria2 = Self.aria2Path {
            engines.append("aria2")
            print("aria2c: \(aria2)")
        } else {
            print("aria2c is not installed: no aria2 baseline (install aria2 to compare with it)")
        }
        var samples: [String: [Benchmark.Sample]] = [:]
        var checkpointCosts: [Double] = []
        var checkpointCPUCosts: [Double] = []
        var ratios: [String: [Double]] = [:]
        for run in 0..<runs {
            let shift = run % engines.count
            var sampled: [String: Benchmark.Sample] = [:]
            for engine in Array(engines[shift...]) + Array(engines[..<shift]) {
                let destination = root.appendingPathComponent("\(engine).bin")
                let sample = try await Benchmark.measure(
                    engine == "aria2" ? "aria2" : "downstream", url: server.url("/big.bin"), destination: destination,
                    rate: 0, extraArguments: Self.arguments(engine))
                if let mismatch = try body.firstMismatch(inFileAt: destination) {
                    throw BenchmarkError("\(engine) wrote a wrong file (byte \(mismatch))")
                }
                try FileManager.default.removeItem(at: destination)
                sampled[engine] = sample
                samples[engine, default: []].append(sample)
            }
            for engine in engines where engine != "x1" {
                ratios[engine, default: []].append(sampled["x1"]!.wall / sampled[engine]!.wall)
            }
            checkpointCosts.append(sampled["x8"]!.wall / sampled["x8-8MiB"]!.wall)
            checkpointCPUCosts.append(sampled["x8"]!.cpu / sampled["x8-8MiB"]!.cpu)
        }
        print("client                    wall s   MB/s     peak MiB   speed / 1 connection")
        for engine in engines {
            let wall = Benchmark.middle(samples[engine]!.map(\.wall))
            let peak = Benchmark.middle(samples[engine]!.map { Double($0.peakKiB) }) / 1024
            let ratio = ratios[engine].map { Benchmark.format(Benchmark.middle($0)) + "x" } ?? "1x"
            print(
                Benchmark.pad(Self.names[engine] ?? engine, 26) + Benchmark.pad(Benchmark.format(wall), 9)
                    + Benchmark.pad(Benchmark.format(Double(body.count) / wall / 1e6), 9)
                    + Benchmark.pad(Benchmark.format(peak), 11) + ratio)
        }
        let four = Benchmark.middle(ratios["x4"]!)
        let eight = Benchmark.middle(ratios["x8"]!)
        let peak =
            engines.filter { $0 != "aria2" }.map { engine in
                Benchmark.middle(samples[engine]!.map { Double($0.peakKiB) }) / 1024
            }.max() ?? 0
        let checkpointCost = Benchmark.middle(checkpointCosts)
        let pass = four >= 3.5 && eight >= 6 && peak <= 48 && checkpointCost <= 1.03
        print("4 connections: \(Benchmark.format(four))x the speed of 1 (target >= 3.5x)")
        print("8 connections: \(Benchmark.format(eight))x the speed of 1 (target >= 6x)")
        print("peak memory of Downstream: \(Benchmark.format(peak)) MiB (target <= 48 MiB)")
        print(
            "8 connections checkpointing every \(CheckpointSettings().bytesPerConnection >> 10) KiB each / every 8 MiB: "
                + "\(Benchmark.format(checkpointCost))x the wall"
                + " time (target <= 1.03x), \(Benchmark.format(Benchmark.middle(checkpointCPUCosts)))x the CPU time")
        if let aria2 = ratios["aria2"] {
            let x4 = Benchmark.middle(samples["x4"]!.map(\.wall))
            let wall = Benchmark.middle(samples["aria2"]!.map(\.wall))
            print(
                "Downstream -x 4 wall / aria2c -x4 -s4 wall: \(Benchmark.format(x4 / wall))x"
                    + " (aria2 \(Benchmark.format(Benchmark.middle(aria2)))x the speed of 1 connection)")
        }
        print("targets " + (pass ? "met" : "MISSED"))
        return pass ? 0 : 3
    }

    static let names = [
        "x1": "Downstream, 1 connection", "x4": "Downstream, 4 connections", "x8": "Downstream, 8 connections",
        "x8-8MiB": "8, checkpoints per 8 MiB", "aria2": "aria2c -x4 -s4",
    ]

    /// The child's arguments for `engine`.
    static func arguments(_ engine: String) -> [String] {
        switch engine {
        case "aria2": ["--connections", "4"]
        case "x8-8MiB": ["--connections", "8", "--connection-checkpoint-kib", "8192"]
        default: ["--connections", String(engine.dropFirst())]
        }
    }

    /// Where aria2c is, if it is installed.
    static let aria2Path: String? = ["/usr/bin/aria2c", "/usr/local/bin/aria2c"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}
