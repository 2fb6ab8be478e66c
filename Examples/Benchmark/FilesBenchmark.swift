import Downstream
import DownstreamTesting
import Foundation

/// `downstream-benchmark files [--count 1000] [--size 65536] [--limit 8] [--runs 3]
/// [--directory DIR]`: many small files, each client in a child process of its own (the server
/// runs in this one), so that wall and CPU time are the client's alone.
///
/// Clients: Downstream on its default transport (libcurl on Linux), Downstream over URLSession,
/// and `curl -Z --parallel-max <limit>` when curl is installed; and on libcurl, the floor under
/// Downstream's figure (`SmallFileFloor`): the transport alone, and the transport with the file
/// discipline Downstream guarantees, without the download model. In a rotating order, `runs`
/// times. Files (and the stores) go under `--directory` (tmpfs, for figures that are the
/// clients' and not the file system's). Each file comes with an `ETag` and a `Last-Modified`, as a
/// static file from nginx does. The children in this process count their heap allocations (see
/// the `AllocationCounter` target), from the first file's start to the last one's end.
struct FilesBenchmark {
    let count: Int
    let size: Int
    let limit: Int
    let runs: Int
    let root: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        count = max(1, options.int("count", default: 1000))
        size = max(1, options.int("size", default: 65536))
        limit = max(1, options.int("limit", default: 8))
        runs = max(1, options.int("runs", default: 3))
        root = Benchmark.workDirectory(options, name: "files")
    }

    func run() async -> Int32 {
        await Benchmark.run(in: root) { try await measure() }
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Int64(size), seed: 11)
        // Validators as a real server sends them (nginx sends both for a static file): the
        // client then keeps them and the server's time, as it would in the field.
        var route = Route(body: body)
        route.etag = "\"6745a1b2-\(size)\""
        route.lastModified = "Tue, 26 Nov 2024 10:00:00 GMT"
        server.setRoute("/small", route)
        print(
            "Downstream files benchmark: \(count) files of \(size) bytes over loopback, \(limit) at once, each client")
        print("in a child process; medians of \(runs) runs")
        var engines = ["downstream", "downstream-urlsession"]
        let floors = SmallFileFloor.Discipline.allCases.map { "floor-\($0.rawValue)" }
        if SmallFileFloor.isAvailable {
            engines += floors
        }
        if CurlCommand.path != nil {
            engines.append("curl")
        } else {
            print("curl is not installed: no curl baseline (install curl to compare with it)")
        }
        let measured = try await RotatingRuns(engines: engines, runs: runs) { engine, run in
            let directory = root.appendingPathComponent("\(engine)-\(run)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let sample = try await Benchmark.measure(
                engine, url: server.url("/small"), destination: directory, rate: 0,
                extraArguments: ["--count", String(count), "--limit", String(limit)])
            try body.checkSampleFiles(in: directory, count: count, writtenBy: engine)
            try FileManager.default.removeItem(at: directory)
            return sample
        }
        let samples = measured.samples
        print("engine                    wall s   files/s   CPU s   peak MiB  allocations/file")
        for engine in engines {
            let wall = Benchmark.middle(samples[engine]!.map(\.wall))
            let cpu = Benchmark.middle(samples[engine]!.map(\.cpu))
            let peak = Benchmark.middle(samples[engine]!.map { Double($0.peakKiB) }) / 1024
            let allocations = samples[engine]!.compactMap(\.allocationsPerFile)
            print(
                Benchmark.pad(Benchmark.names[engine] ?? engine, 26) + Benchmark.pad(Benchmark.format(wall), 9)
                    + Benchmark.pad(String(Int(Double(count) / wall)), 10) + Benchmark.pad(Benchmark.format(cpu), 8)
                    + Benchmark.pad(Benchmark.format(peak), 10)
                    + (allocations.isEmpty ? "-" : String(Int(Benchmark.middle(allocations).rounded()))))
        }
        var pass = true
        let overURLSession = 1 / measured.ratios(to: "downstream-urlsession").wall
        pass = pass && overURLSession >= 1.25
        print(
            "Downstream's throughput / Downstream over URLSession: \(Benchmark.format(overURLSession))x"
                + " (target >= 1.25x)")
        if engines.contains("curl") {
            let (wall, cpu) = measured.ratios(to: "curl")
            pass = pass && wall <= 1.5 && cpu <= 2
            print(
                "Downstream / curl -Z --parallel-max \(limit): wall \(Benchmark.format(wall))x  CPU \(Benchmark.format(cpu))x"
                    + " (targets wall <= 1.5x, CPU <= 2x)")
            for floor in floors where engines.contains(floor) {
                let (wall, cpu) = measured.ratios(to: "curl", of: floor)
                print(
                    "\(Benchmark.names[floor]!) / curl: wall \(Benchmark.format(wall))x  CPU \(Benchmark.format(cpu))x")
            }
        }
        if engines.contains("floor-guarantees") {
            // What the download model adds to the transport and the file discipline.
            let (wall, cpu) = measured.ratios(to: "floor-guarantees")
            let allocations = samples["downstream"]!.compactMap(\.allocationsPerFile)
            let allocationsMet = allocations.isEmpty || Benchmark.middle(allocations) <= 120
            pass = pass && wall <= 1.15 && cpu <= 1.25 && allocationsMet
            print(
                "Downstream / \(Benchmark.names["floor-guarantees"]!): wall \(Benchmark.format(wall))x"
                    + "  CPU \(Benchmark.format(cpu))x (targets wall <= 1.15x, CPU <= 1.25x, <= 120 allocations per file)"
            )
        }
        print("targets " + (pass ? "met" : "MISSED"))
        return pass ? 0 : 3
    }

}
