import Downstream
import DownstreamTesting
import Foundation

/// `downstream-benchmark kills [--mib 512] [--mbps 20] [--connections 8] [--runs 3] [--checkpoint-kib N]
/// [--directory DIR]`:
/// one file from a server that paces each connection to `mbps` MB/s, downloaded over
/// `connections` connections by a child process that is killed (`SIGKILL`) after a random 0.5 to
/// 1.5 s, launched again on the same store, and so on until it completes. Each connection
/// checkpoints after `checkpoint-kib` of its own (by default the library's default), or after
/// 8 MiB (as before issue 21), in turn; `runs` times. Prints the bytes the server sent beyond the file's size, per kill (medians).
/// Target (issue 21): at most 4 MB per kill at 20 MB/s per connection over 8 connections.
struct KillsBenchmark {
    let mebibytes: Int
    let bytesPerSecond: Int
    let connections: Int
    let runs: Int
    /// The checkpoints per connection measured, in KiB: the library's default unless given.
    let checkpointKiB: Int
    let root: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        mebibytes = max(1, options.int("mib", default: 512))
        bytesPerSecond = max(1, options.int("mbps", default: 20)) * 1_000_000
        connections = max(2, options.int("connections", default: 8))
        runs = max(1, options.int("runs", default: 3))
        checkpointKiB = max(
            1, options.int("checkpoint-kib", default: Int(CheckpointSettings().bytesPerConnection >> 10)))
        root = Benchmark.workDirectory(options, name: "kills")
    }

    func run() async -> Int32 {
        await Benchmark.run(in: root) { try await measure() }
    }

    private func measure() async throws -> Int32 {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 15)
        var route = Route(body: body)
        route.etag = "\"kills\""
        route.bytesPerSecond = bytesPerSecond
        server.setRoute("/big.bin", route)
        print(
            "Kills benchmark: \(mebibytes) MiB over \(connections) connections paced to \(bytesPerSecond / 1_000_000)"
                + " MB/s each, killed after 0.5 to 1.5 s until complete; medians of \(runs) runs")
        let checkpoints = [checkpointKiB, 8192]
        var perKill: [Int: [Double]] = [:]
        var kills: [Int: [Int]] = [:]
        for run in 0..<runs {
            for kibibytes in run % 2 == 0 ? checkpoints : checkpoints.reversed() {
                let (count, extra) = try await killedDownload(
                    server: server, body: body, checkpointKiB: kibibytes, run: run)
                kills[kibibytes, default: []].append(count)
                perKill[kibibytes, default: []].append(count > 0 ? Double(extra) / Double(count) / 1e6 : 0)
            }
        }
        print("checkpoints per connection   kills   MB sent again per kill")
        for kibibytes in checkpoints {
            print(
                Benchmark.pad("\(kibibytes) KiB", 29)
                    + Benchmark.pad(Benchmark.format(Benchmark.middle(kills[kibibytes]!.map(Double.init))), 8)
                    + Benchmark.format(Benchmark.middle(perKill[kibibytes]!)))
        }
        let result = Benchmark.middle(perKill[checkpointKiB]!)
        print("per kill with \(checkpointKiB) KiB checkpoints: \(Benchmark.format(result)) MB (target <= 4 MB)")
        return result <= 4 ? 0 : 3
    }

    /// Downloads the file with kills until a launch completes it; returns the kills and the bytes
    /// the server sent beyond the file's size.
    private func killedDownload(
        server: TestServer, body: Body, checkpointKiB: Int, run: Int
    ) async throws -> (kills: Int, extra: Int64) {
        let store = root.appendingPathComponent("store-\(checkpointKiB)-\(run)", isDirectory: true)
        let destination = root.appendingPathComponent("killed-\(checkpointKiB)-\(run).bin")
        let before = server.totalBodyBytesSent
        var kills = 0
        while true {
            let process = Process()
            process.executableURL = Bundle.main.executableURL
            process.arguments = [
                ChildRun.command, "--engine", "downstream", "--url", server.url("/big.bin").absoluteString,
                "--destination", destination.path, "--connections", String(connections),
                "--connection-checkpoint-kib", String(checkpointKiB), "--store", store.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = ContinuousClock.now + .milliseconds(Int.random(in: 500...1500))
            while process.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            if !process.isRunning {
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    throw BenchmarkError("the child exited with \(process.terminationStatus)")
                }
                break
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            kills += 1
            guard kills < 500 else { throw BenchmarkError("no launch completed the file in 500") }
        }
        if let mismatch = try body.firstMismatch(inFileAt: destination) {
            throw BenchmarkError("a wrong file after \(kills) kills (byte \(mismatch))")
        }
        try FileManager.default.removeItem(at: destination)
        try? FileManager.default.removeItem(at: store)
        return (kills, server.totalBodyBytesSent - before - body.count)
    }
}
