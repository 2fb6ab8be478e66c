import Foundation

/// The curl command line, the baseline a Linux user compares with.
enum CurlCommand {
    /// Where curl is, if it is installed.
    static let path: String? = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// What a curl (or aria2c) run cost: its CPU time (user plus system), the user part, and its
    /// peak resident memory, as the kernel counts them for a waited-for child.
    typealias Figures = (cpu: Double, user: Double, peakKiB: Int)

    /// Downloads `url` to `destination` with `curl -s -o` (trusting `caCertificate` alone, with
    /// `--cacert`, when given); curl prints `http-version=<the version it used>`.
    static func download(_ url: URL, to destination: URL, caCertificate: String? = nil) throws -> Figures {
        try run(
            ["-s", "-S", "-f", "--no-progress-meter", "-o", destination.path, "-w", "http-version=%{http_version}\n"]
                + (caCertificate.map { ["--cacert", $0] } ?? []) + [url.absoluteString])
    }

    /// Downloads each URL to its file with `curl -Z --parallel-max <parallel>` (one process, a
    /// config file for the list); returns curl's CPU time and peak memory.
    static func download(_ files: [(URL, URL)], parallel: Int) throws -> Figures {
        let list = files.map { "url = \"\($0.0.absoluteString)\"\noutput = \"\($0.1.path)\"\n" }.joined()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(getpid()).config")
        try list.write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        return try run([
            "-s", "-S", "-f", "--no-progress-meter", "-Z", "--parallel-max", String(parallel), "-K", config.path,
        ])
    }

    /// Downloads `url` to `destination` with `aria2c -x<connections> -s<connections>`; returns
    /// aria2c's CPU time and peak memory.
    static func downloadWithAria2(_ url: URL, to destination: URL, connections: Int) throws -> Figures {
        guard let aria2 = SegmentsBenchmark.aria2Path else { throw BenchmarkError("aria2c is not installed") }
        return try run(
            [
                "-q", "-x\(connections)", "-s\(connections)", "--min-split-size=4M", "--allow-overwrite=true",
                "--auto-file-renaming=false", "-d", destination.deletingLastPathComponent().path,
                "-o", destination.lastPathComponent, url.absoluteString,
            ], program: aria2)
    }

    private static func run(_ arguments: [String], program: String? = path) throws -> Figures {
        guard let program else { throw BenchmarkError("curl is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(program) exited with \(process.terminationStatus)")
        }
        let usage = ChildRun.usage(RUSAGE_CHILDREN)
        #if os(Linux)
            let peakKiB = Int(usage.ru_maxrss)
        #else
            let peakKiB = Int(usage.ru_maxrss) / 1024  // Darwin reports bytes
        #endif
        return (ChildRun.cpuSeconds(of: usage), ChildRun.seconds(usage.ru_utime), peakKiB)
    }
}
