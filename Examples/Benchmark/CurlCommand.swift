import Foundation

/// The curl command line, the baseline a Linux user compares with.
enum CurlCommand {
    /// Where curl is, if it is installed.
    static let path: String? = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Downloads `url` to `destination` with `curl -s -o`; returns curl's own CPU time (user plus
    /// system) and peak resident memory, as the kernel counts them for a waited-for child.
    static func download(_ url: URL, to destination: URL) throws -> (cpu: Double, peakKiB: Int) {
        guard let path else { throw BenchmarkError("curl is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-s", "-S", "-f", "-o", destination.path, url.absoluteString]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("curl exited with \(process.terminationStatus)")
        }
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            let peakKiB = Int(usage.ru_maxrss)
        #else
            getrusage(RUSAGE_CHILDREN, &usage)
            let peakKiB = Int(usage.ru_maxrss) / 1024
        #endif
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (value(usage.ru_utime) + value(usage.ru_stime), peakKiB)
    }
}
