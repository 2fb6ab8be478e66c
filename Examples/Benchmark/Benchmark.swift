import DownstreamTesting
import Foundation

/// Serves a pattern body on loopback and measures child-process downloads of it.
struct Benchmark {
    struct Sample {
        var wall: Double
        var cpu: Double
        var peakKiB: Int
        /// The user part of ``cpu``, where the child reports it.
        var user: Double = 0
        /// Heap allocations per file, where the child counts them (many files, in this process).
        var allocationsPerFile: Double? = nil
    }

    let mebibytes: Int
    let runs: Int
    let slowDiskBytesPerSecond: Int

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = options.int("mib", default: 1024)
        runs = max(1, options.int("runs", default: 5))
        slowDiskBytesPerSecond = options.int("slow-disk-mbps", default: 100) * 1_000_000
    }

    func run() async -> Int32 {
        do {
            return try await measureAll()
        } catch {
            print("benchmark failed: \(error)")
            return 1
        }
    }

    private func measureAll() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 7)
        var route = Route(body: body)
        route.etag = "\"benchmark\""
        server.setRoute("/file.bin", route)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "downstream-benchmark-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print(
            "Downstream benchmark: \(mebibytes) MiB over loopback, \(runs) runs of each engine, interleaved, "
                + "each in a child process; medians")
        print("disk          engine                    wall s   MB/s   CPU s   peak MiB")
        if CurlCommand.path == nil {
            print("curl is not installed: no curl baseline (install curl to compare with it)")
        }
        var allPass = true
        for (disk, rate) in [("fast", 0), ("slow \(slowDiskBytesPerSecond / 1_000_000)MB/s", slowDiskBytesPerSecond)] {
            // curl writes at the disk's own speed: it is the baseline of the fast disk only.
            var engines = ["urlsession", "downstream", "downstream-urlsession"]
            if rate == 0, CurlCommand.path != nil { engines.append("curl") }
            let measured = try await RotatingRuns(engines: engines, runs: runs) { engine, _ in
                let destination = directory.appendingPathComponent("\(engine).bin")
                let sample = try await Self.measure(
                    engine, url: server.url("/file.bin"), destination: destination, rate: rate)
                if let mismatch = try body.firstMismatch(inFileAt: destination) {
                    throw BenchmarkError("\(engine) wrote a wrong file (first difference at byte \(mismatch))")
                }
                try FileManager.default.removeItem(at: destination)
                return sample
            }
            let samples = measured.samples
            for engine in engines {
                let median = Self.median(samples[engine]!)
                print(
                    Self.pad(disk, 14) + Self.pad(Self.names[engine] ?? engine, 26)
                        + Self.pad(Self.format(median.wall), 9)
                        + Self.pad(String(Int(Double(body.count) / median.wall / 1e6)), 7)
                        + Self.pad(Self.format(median.cpu), 8)
                        + Self.format(Double(median.peakKiB) / 1024))
            }
            let peakMiB = Double(samples["downstream"]!.map(\.peakKiB).max()!) / 1024
            func ratios(_ baseline: String) -> String {
                let (wall, cpu) = measured.ratios(to: baseline)
                return "wall \(Self.format(wall))x  CPU \(Self.format(cpu))x"
            }
            let plainPeakMiB = Double(samples["urlsession"]!.map(\.peakKiB).max()!) / 1024
            let plain = measured.ratios(to: "urlsession")
            let pass = plain.wall <= 1.1 && plain.cpu <= 1.1 && peakMiB < 64
            allPass = allPass && pass
            print(
                "  \(disk): Downstream / URLSession  \(ratios("urlsession")) (medians of per-run ratios); Downstream"
                    + " peak \(Self.format(peakMiB)) MiB at most (URLSession \(Self.format(plainPeakMiB)) MiB)"
                    + "  targets wall, CPU <= 1.1x, peak < 64 MiB: " + (pass ? "met" : "MISSED"))
            print("  \(disk): Downstream / Downstream over URLSession  \(ratios("downstream-urlsession"))")
            if rate == 0, engines.contains("curl") {
                let curl = measured.ratios(to: "curl")
                let curlPass = curl.wall <= 0.9 && curl.cpu <= 0.9 && peakMiB <= 40
                allPass = allPass && curlPass
                print(
                    "  \(disk): Downstream / curl  \(ratios("curl"))  targets wall, CPU <= 0.9x, peak <= 40 MiB: "
                        + (curlPass ? "met" : "MISSED"))
            }
            if rate > 0 {
                let diskSeconds = Double(body.count) / Double(rate)
                let diskRatio = Self.median(samples["downstream"]!).wall / diskSeconds
                let diskPass = diskRatio <= 1.05 && peakMiB <= 48
                allPass = allPass && diskPass
                print(
                    "  \(disk): Downstream / the disk's own time  wall \(Self.format(diskRatio))x"
                        + "  targets wall <= 1.05x, peak <= 48 MiB: " + (diskPass ? "met" : "MISSED"))
            }
        }
        return allPass ? 0 : 3
    }

    /// Runs one download in a child process and reads its figures.
    static func measure(
        _ engine: String, url: URL, destination: URL, rate: Int, extraArguments: [String] = []
    ) async throws -> Sample {
        try await measureWithFields(
            engine, url: url, destination: destination, rate: rate, extraArguments: extraArguments
        ).sample
    }

    /// Runs one download in a child process; its figures, and every field it printed.
    static func measureWithFields(
        _ engine: String, url: URL, destination: URL, rate: Int, extraArguments: [String] = []
    ) async throws -> (sample: Sample, fields: [String: String]) {
        let fields = try ChildRun.figures(
            of: [
                ChildRun.command, "--engine", engine, "--url", url.absoluteString, "--destination", destination.path,
                "--disk-bytes-per-second", String(rate),
            ] + extraArguments,
            what: engine)
        guard let wall = fields["wall"].flatMap(Double.init), let cpu = fields["cpu"].flatMap(Double.init),
            let peak = fields["peak-kib"].flatMap(Int.init)
        else { throw BenchmarkError("cannot read the child's figures: \(fields["output"] ?? "")") }
        let user = fields["user"].flatMap(Double.init) ?? 0
        return (
            Sample(
                wall: wall, cpu: cpu, peakKiB: peak, user: user,
                allocationsPerFile: fields["allocations-per-file"].flatMap(Double.init)),
            fields
        )
    }

    /// A directory of this process for a benchmark's files: in `--directory`, else the temporary
    /// directory.
    static func workDirectory(_ options: Options, name: String) -> URL {
        URL(fileURLWithPath: options.string("directory") ?? NSTemporaryDirectory())
            .appendingPathComponent("downstream-\(name)-benchmark-\(getpid())")
    }

    /// Runs `measure` with `directory` made, removes the directory, and turns an error into a
    /// message and exit status 1.
    static func run(in directory: URL, _ measure: () async throws -> Int32) async -> Int32 {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            return try await measure()
        } catch {
            print("benchmark failed: \(error)")
            return 1
        }
    }

    static let names = [
        "urlsession": "URLSession (plain)", "downstream": "Downstream",
        "downstream-urlsession": "Downstream/URLSession",
        "curl": "curl",
        "floor-transport": "Floor: transport", "floor-guarantees": "Floor: guarantees",
    ]

    static func middle(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    private static func median(_ samples: [Sample]) -> Sample {
        Sample(
            wall: middle(samples.map(\.wall)), cpu: middle(samples.map(\.cpu)),
            peakKiB: Int(middle(samples.map { Double($0.peakKiB) })))
    }

    static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    /// `text` followed by spaces up to `width` (at least one), for the columns of a table.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
