import DownstreamTestServer
import Foundation

/// Serves a pattern body on loopback and measures child-process downloads of it.
struct Benchmark {
    struct Sample {
        var wall: Double
        var cpu: Double
        var peakKiB: Int
    }

    let mebibytes: Int
    let runs: Int
    let slowDiskBytesPerSecond: Int

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = options.int("mib", default: 1024)
        runs = max(1, options.int("runs", default: 3))
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

        print("Downstream benchmark: \(mebibytes) MiB over loopback, median of \(runs) runs, each in a child process")
        print("disk        engine       wall s   MB/s   CPU s   peak MiB")
        var allPass = true
        for (disk, rate) in [("fast", 0), ("slow \(slowDiskBytesPerSecond / 1_000_000)MB/s", slowDiskBytesPerSecond)] {
            var medians: [String: Sample] = [:]
            for engine in ["urlsession", "downstream"] {
                var samples: [Sample] = []
                for _ in 0..<runs {
                    let destination = directory.appendingPathComponent("\(engine).bin")
                    samples.append(
                        try await measure(engine, url: server.url("/file.bin"), destination: destination, rate: rate))
                    if let mismatch = try body.firstMismatch(inFileAt: destination) {
                        throw BenchmarkError("\(engine) wrote a wrong file (first difference at byte \(mismatch))")
                    }
                    try FileManager.default.removeItem(at: destination)
                }
                let median = Self.median(samples)
                medians[engine] = median
                let name = engine == "urlsession" ? "URLSession" : "Downstream"
                print(
                    pad(disk, 12) + pad(name, 13) + pad(format(median.wall), 9)
                        + pad(String(Int(Double(body.count) / median.wall / 1e6)), 7) + pad(format(median.cpu), 8)
                        + format(Double(median.peakKiB) / 1024))
            }
            let ours = medians["downstream"]!
            let plain = medians["urlsession"]!
            let wallRatio = ours.wall / plain.wall
            let cpuRatio = ours.cpu / plain.cpu
            let peakMiB = Double(ours.peakKiB) / 1024
            let pass = wallRatio <= 1.1 && cpuRatio <= 1.1 && peakMiB < 64
            allPass = allPass && pass
            print(
                "  \(disk): Downstream / URLSession  wall \(format(wallRatio))x  CPU \(format(cpuRatio))x;"
                    + " Downstream peak \(format(peakMiB)) MiB (URLSession \(format(Double(plain.peakKiB) / 1024)) MiB)"
                    + "  targets wall, CPU <= 1.1x, peak < 64 MiB: \(pass ? "met" : "MISSED")")
        }
        return allPass ? 0 : 3
    }

    private func measure(_ engine: String, url: URL, destination: URL, rate: Int) async throws -> Sample {
        let process = Process()
        process.executableURL = Bundle.main.executableURL
        process.arguments = [
            ChildRun.command, "--engine", engine, "--url", url.absoluteString, "--destination", destination.path,
            "--disk-bytes-per-second", String(rate),
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(engine) child exited with \(process.terminationStatus): \(output)")
        }
        var fields: [String: String] = [:]
        for field in output.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let wall = fields["wall"].flatMap(Double.init), let cpu = fields["cpu"].flatMap(Double.init),
            let peak = fields["peak-kib"].flatMap(Int.init)
        else { throw BenchmarkError("cannot read the child's figures: \(output)") }
        return Sample(wall: wall, cpu: cpu, peakKiB: peak)
    }

    private static func median(_ samples: [Sample]) -> Sample {
        func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return Sample(
            wall: middle(samples.map(\.wall)), cpu: middle(samples.map(\.cpu)),
            peakKiB: Int(middle(samples.map { Double($0.peakKiB) })))
    }

    private func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
