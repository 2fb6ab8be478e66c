import Downstream
import DownstreamTesting
import Foundation

/// What an expected digest costs: hashing speed next to the system's `sha256sum` on the same
/// file, and a download of more than 4 GiB with and without a digest (wall time, CPU time, peak
/// memory), each download in a child process.
struct DigestBenchmark {
    let mebibytes: Int
    let directory: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = options.int("mib", default: 4608)
        directory = Benchmark.workDirectory(options, name: "digest")
    }

    func run() async -> Int32 {
        await Benchmark.run(in: directory, measure)
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 11)
        var route = Route(body: body)
        route.etag = "\"digest-benchmark\""
        server.setRoute("/file.bin", route)
        let url = server.url("/file.bin")
        let destination = directory.appendingPathComponent("file.bin")
        print("Digest benchmark: \(mebibytes) MiB over loopback, in \(directory.path)")

        // A plain download, then the system's digest of the file: the baseline.
        let plain = try await Benchmark.measure("downstream", url: url, destination: destination, rate: 0)
        let clock = ContinuousClock()
        var start = clock.now
        let system = try Self.systemSHA256(of: destination)
        let systemSeconds = ChildRun.seconds(start.duration(to: clock.now))
        start = clock.now
        let ours = try Digest(.sha256, ofFileAt: destination)
        let ourSeconds = ChildRun.seconds(start.duration(to: clock.now))
        guard ours.hexValue == system else {
            throw BenchmarkError("SHA-256 differs: ours \(ours.hexValue), sha256sum \(system)")
        }
        try FileManager.default.removeItem(at: destination)

        // The same download, hashed while it is written and checked before delivery.
        let checked = try await Benchmark.measure(
            "downstream", url: url, destination: destination, rate: 0, extraArguments: ["--sha256", system])
        if let mismatch = try body.firstMismatch(inFileAt: destination) {
            throw BenchmarkError("the checked download wrote a wrong file (first difference at byte \(mismatch))")
        }
        try FileManager.default.removeItem(at: destination)

        let megabytes = Double(body.count) / 1e6
        print(
            "SHA-256 of the file:  sha256sum \(Int(megabytes / systemSeconds)) MB/s,"
                + " Downstream \(Int(megabytes / ourSeconds)) MB/s"
                + " -> \(Benchmark.format(systemSeconds / ourSeconds))x the system's speed")
        print("download              wall s   MB/s   CPU s   peak MiB")
        for (name, sample) in [("no digest", plain), ("SHA-256 checked", checked)] {
            print(
                name.padding(toLength: 22, withPad: " ", startingAt: 0)
                    + Benchmark.format(sample.wall).padding(toLength: 9, withPad: " ", startingAt: 0)
                    + String(Int(megabytes / sample.wall)).padding(toLength: 7, withPad: " ", startingAt: 0)
                    + Benchmark.format(sample.cpu).padding(toLength: 8, withPad: " ", startingAt: 0)
                    + Benchmark.format(Double(sample.peakKiB) / 1024))
        }
        let peakMiB = Double(checked.peakKiB) / 1024
        let pass = peakMiB < 64
        print(
            "  checked / plain: wall \(Benchmark.format(checked.wall / plain.wall))x,"
                + " CPU \(Benchmark.format(checked.cpu / plain.cpu))x; peak with digest \(Benchmark.format(peakMiB)) MiB"
                + " for \(mebibytes) MiB  target constant memory (< 64 MiB): " + (pass ? "met" : "MISSED"))
        return pass ? 0 : 3
    }

    /// The system's `sha256sum` of the file at `url`.
    static func systemSHA256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let digest = output.split(separator: " ").first else {
            throw BenchmarkError("sha256sum failed: \(output)")
        }
        return String(digest)
    }
}
