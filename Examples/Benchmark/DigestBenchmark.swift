import Downstream
import DownstreamTesting
import Foundation

/// What an expected digest costs. First each algorithm's CPU time per GiB over a file, against
/// `openssl dgst` on the same file in the same run (interleaved runs, medians of the per-run
/// ratios; openssl skipped when it is not installed), and Downstream's Swift code once
/// (`DOWNSTREAM_DIGESTS=swift`: the fallback where the platform has no hash library). Then a
/// download with and without an expected SHA-256, interleaved too (wall time, CPU time, peak
/// memory). Every measurement runs in a child process.
struct DigestBenchmark {
    static let childCommand = "digest-child"
    static let algorithms: [(name: String, algorithm: Digest.Algorithm, openssl: String?)] = [
        ("sha256", .sha256, "sha256"), ("sha512", .sha512, "sha512"), ("sha384", .sha384, "sha384"),
        ("sha1", .sha1, "sha1"), ("md5", .md5, "md5"),
        ("crc32c", .crc32c, nil), ("crc32", .crc32, nil),
    ]

    let mebibytes: Int
    let runs: Int
    let directory: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = options.int("mib", default: 1024)
        runs = options.int("runs", default: 5)
        directory = Benchmark.workDirectory(options, name: "digest")
    }

    func run() async -> Int32 {
        await Benchmark.run(in: directory, measure)
    }

    /// The child: hashes `--file` with `--algorithm` and prints `cpu=<seconds> digest=<hex>`, the
    /// CPU time of the hashing (reading the file included), without the process's start.
    static func child(_ arguments: [String]) -> Int32 {
        let options = Options(arguments)
        guard let name = options.string("algorithm"), let path = options.string("file"),
            let algorithm = algorithms.first(where: { $0.name == name })?.algorithm
        else {
            print("usage: downstream-benchmark \(childCommand) --algorithm NAME --file PATH")
            return 2
        }
        let start = ChildRun.cpuSeconds()
        do {
            let digest = try Digest(algorithm, ofFileAt: URL(fileURLWithPath: path))
            print("cpu=\(ChildRun.cpuSeconds() - start) digest=\(digest.hexValue)")
            return 0
        } catch {
            print("cannot hash \(path): \(error)")
            return 1
        }
    }

    private func measure() async throws -> Int32 {
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 11)
        let file = directory.appendingPathComponent("hashed.bin")
        try Self.write(body, to: file)
        let gibibytes = Double(body.count) / Double(1 << 30)
        let openssl = Self.executable("openssl")
        print(
            "Digest benchmark: \(mebibytes) MiB in \(directory.path), \(runs) runs, CPU seconds per GiB (medians)"
                + (openssl == nil ? "; openssl is not installed: no baseline" : ""))
        print("algorithm  Downstream  openssl dgst  ratio  Swift code   target <= 1.1x openssl")
        var allPass = true
        var sha256 = ""
        for entry in Self.algorithms {
            var ours: [Double] = []
            var theirs: [Double] = []
            var ratios: [Double] = []
            for run in 0..<runs {
                // Interleaved, who goes first alternating: a machine that slows down weighs on both.
                var sample: (ours: Double, theirs: Double?) = (0, nil)
                for oursFirst in run % 2 == 0 ? [true, false] : [false, true] {
                    if oursFirst {
                        let (cpu, digest) = try Self.hash(entry.name, file, swiftCode: false)
                        if entry.algorithm == .sha256 { sha256 = digest }
                        sample.ours = cpu / gibibytes
                    } else if let openssl, let name = entry.openssl {
                        sample.theirs = try Self.opensslCPU(openssl, name, file) / gibibytes
                    }
                }
                ours.append(sample.ours)
                if let theirCPU = sample.theirs {
                    theirs.append(theirCPU)
                    ratios.append(sample.ours / theirCPU)
                }
            }
            let swiftCode = try Self.hash(entry.name, file, swiftCode: true).cpu / gibibytes
            var line =
                Benchmark.pad(entry.algorithm.description, 11)
                + Benchmark.pad(Benchmark.format(Benchmark.middle(ours)), 12)
            if ratios.isEmpty {
                line += Benchmark.pad("-", 14) + Benchmark.pad("-", 7) + Benchmark.format(swiftCode)
            } else {
                let ratio = Benchmark.middle(ratios)
                let pass = ratio <= 1.1
                allPass = allPass && pass
                line +=
                    Benchmark.pad(Benchmark.format(Benchmark.middle(theirs)), 14)
                    + Benchmark.pad(Benchmark.format(ratio) + "x", 7)
                    + Benchmark.pad(Benchmark.format(swiftCode), 13) + (pass ? "met" : "MISSED")
            }
            print(line)
        }
        try FileManager.default.removeItem(at: file)

        // The download, with and without an expected SHA-256, interleaved.
        let server = try TestServer()
        defer { server.shutdown() }
        var route = Route(body: body)
        route.etag = "\"digest-benchmark\""
        server.setRoute("/file.bin", route)
        let url = server.url("/file.bin")
        let destination = directory.appendingPathComponent("file.bin")
        let serverCPU = ChildRun.cpuSeconds()
        let measured = try await RotatingRuns(engines: ["plain", "checked"], runs: runs) { engine, _ in
            let sample = try await Benchmark.measure(
                "downstream", url: url, destination: destination, rate: 0,
                extraArguments: engine == "checked" ? ["--sha256", sha256] : [])
            if let mismatch = try body.firstMismatch(inFileAt: destination) {
                throw BenchmarkError("the \(engine) download wrote a wrong file (first difference at byte \(mismatch))")
            }
            try FileManager.default.removeItem(at: destination)
            return sample
        }
        print("download of \(mebibytes) MiB   wall s   MB/s   CPU s   peak MiB   (medians)")
        for (engine, name) in [("plain", "no digest"), ("checked", "SHA-256 checked")] {
            let samples = measured.samples[engine]!
            let wall = Benchmark.middle(samples.map(\.wall))
            print(
                Benchmark.pad(name, 23) + Benchmark.pad(Benchmark.format(wall), 9)
                    + Benchmark.pad(String(Int(Double(body.count) / wall / 1e6)), 7)
                    + Benchmark.pad(Benchmark.format(Benchmark.middle(samples.map(\.cpu))), 8)
                    + Benchmark.format(Double(samples.map(\.peakKiB).max()!) / 1024))
        }
        // The server shares the machine: on 2 cores, what it takes is not free for a hash.
        print(
            "  the server (this process): \(Benchmark.format((ChildRun.cpuSeconds() - serverCPU) / Double(2 * runs)))"
                + " CPU s per download")
        let (wall, cpu) = measured.ratios(to: "plain", of: "checked")
        let peakMiB = Double(measured.samples["checked"]!.map(\.peakKiB).max()!) / 1024
        let pass = wall <= 1.2 && peakMiB < 64
        print(
            "  checked / plain: wall \(Benchmark.format(wall))x, CPU \(Benchmark.format(cpu))x (medians of per-run"
                + " ratios); peak \(Benchmark.format(peakMiB)) MiB  targets wall <= 1.2x, peak < 64 MiB: "
                + (pass ? "met" : "MISSED"))
        return allPass && pass ? 0 : 3
    }

    /// Downstream's CPU seconds and digest for the file, in a child (with the Swift code only when
    /// `swiftCode`).
    static func hash(_ algorithm: String, _ file: URL, swiftCode: Bool) throws -> (cpu: Double, digest: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["DOWNSTREAM_DIGESTS"] = swiftCode ? "swift" : nil
        let fields = try ChildRun.figures(
            of: [childCommand, "--algorithm", algorithm, "--file", file.path], what: "digest", environment: environment)
        guard let cpu = fields["cpu"].flatMap(Double.init), let digest = fields["digest"] else {
            throw BenchmarkError("cannot read the digest child's figures: \(fields["output"] ?? "")")
        }
        return (cpu, digest)
    }

    /// The CPU seconds (user and system) of `openssl dgst -<algorithm>` over the file.
    static func opensslCPU(_ openssl: URL, _ algorithm: String, _ file: URL) throws -> Double {
        let before = ChildRun.cpuSeconds(of: ChildRun.usage(RUSAGE_CHILDREN))
        let process = Process()
        process.executableURL = openssl
        process.arguments = ["dgst", "-\(algorithm)", file.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("openssl dgst -\(algorithm) exited with \(process.terminationStatus)")
        }
        return ChildRun.cpuSeconds(of: ChildRun.usage(RUSAGE_CHILDREN)) - before
    }

    /// The executable `name` in `PATH`, if there is one.
    static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: "\($0)/\(name)") }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }

    /// Writes `body` to `url`, 16 MiB at a time.
    static func write(_ body: Body, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchmarkError("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var offset: Int64 = 0
        while offset < body.count {
            let end = min(offset + (16 << 20), body.count)
            try handle.write(contentsOf: body.bytes(offset..<end))
            offset = end
        }
    }
}
