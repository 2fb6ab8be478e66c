import Downstream
import Foundation

/// One client's run of the `rtt` benchmark, in a child process: `rtt-child --engine E --url U
/// --destination DIR --count N --limit L [--connections C] [--ca PEM]`: file k of `url?i=k` into `DIR/k.bin`, `L` at
/// once, trusting the certificate authority in `PEM` over HTTPS. Prints `wall=<s> cpu=<s>
/// peak-kib=<KiB>` (curl's and aria2c's own CPU time and peak memory, as `ChildRun` does).
///
/// Engines: `downstream` (its default transport, libcurl on Linux, with a trust rule for
/// 127.0.0.1 that adds the authority, and `C` connections per host, `L` by default), `curl` (`curl -Z --parallel-max L`, with `--cacert`) and
/// `aria2` (`aria2c -j L` with an input file, `--ca-certificate`).
enum RTTChild {
    static let command = "rtt-child"

    static func main(_ arguments: [String]) async -> Int32 {
        let options = Options(arguments)
        guard let engine = options.string("engine"), let url = options.string("url").flatMap(URL.init(string:)),
            let path = options.string("destination")
        else {
            print("usage: \(command) --engine downstream|curl|aria2 --url U --destination DIR --count N")
            return 2
        }
        let directory = URL(fileURLWithPath: path, isDirectory: true)
        let count = max(1, options.int("count", default: 1000))
        let limit = max(1, options.int("limit", default: 8))
        let connections = max(1, options.int("connections", default: limit))
        let authority = options.string("ca").map { URL(fileURLWithPath: $0) }
        let files = (0..<count).map {
            (ChildRun.url(url, index: $0), directory.appendingPathComponent("\($0).bin", isDirectory: false))
        }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            switch engine {
            case "downstream":
                try await drain(
                    files, limit: limit, connections: connections, authority: authority, store: directory)
            case "curl":
                let list = files.map { "url = \"\($0.0.absoluteString)\"\noutput = \"\($0.1.path)\"\n" }.joined()
                let config = directory.appendingPathComponent(".curl.config")
                try list.write(to: config, atomically: true, encoding: .utf8)
                try runTool(
                    CurlCommand.path,
                    ["-s", "-S", "-f", "--no-progress-meter", "-Z", "--parallel-max", String(limit), "-K", config.path]
                        + (authority.map { ["--cacert", $0.path] } ?? []))
            case "aria2":
                let list = files.map { "\($0.0.absoluteString)\n  out=\($0.1.lastPathComponent)\n" }.joined()
                let input = directory.appendingPathComponent(".aria2.input")
                try list.write(to: input, atomically: true, encoding: .utf8)
                try runTool(
                    SegmentsBenchmark.aria2Path,
                    [
                        "-q", "-j", String(limit), "-x1", "-s1", "--allow-overwrite=true",
                        "--auto-file-renaming=false", "-d", directory.path, "-i", input.path,
                    ] + (authority.map { ["--ca-certificate=\($0.path)"] } ?? []))
            default:
                print("unknown engine \(engine)")
                return 2
            }
        } catch {
            print("failed \(error)")
            return 1
        }
        let wall = ChildRun.seconds(start.duration(to: clock.now))
        if engine == "downstream" {
            print("wall=\(wall) cpu=\(ChildRun.cpuSeconds()) peak-kib=\(ChildRun.peakResidentKiB())")
        } else {
            let usage = ChildRun.usage(RUSAGE_CHILDREN)
            print("wall=\(wall) cpu=\(ChildRun.cpuSeconds(of: usage)) peak-kib=\(usage.ru_maxrss)")
        }
        return 0
    }

    /// Downloads each file through one manager, `limit` at once, as `ChildRun`'s `--count` mode
    /// does, trusting `authority` (if any) for 127.0.0.1.
    private static func drain(
        _ files: [(URL, URL)], limit: Int, connections: Int, authority: URL?, store: URL
    ) async throws {
        let manager = try DownloadManager(
            configuration: .init(identifier: "benchmark-rtt") {
                $0.storage.directory = store.appendingPathComponent(".store-\(getpid())")
                $0.scheduling.maximumConcurrentDownloads = limit
                $0.scheduling.maximumConcurrentDownloadsPerHost = limit
                // The per-host limit by default, as `ManagingManyDownloads` asks: with the default 6,
                // two of 8 downloads over HTTP/1.1 wait in the transport for a connection.
                $0.network.maximumConnectionsPerHost = connections
                if let authority {
                    $0.trust.rules = [TrustRule(host: "127.0.0.1", additionalAuthorities: [.file(authority)])]
                }
            })
        var downloads: [Download] = []
        for (url, file) in files {
            downloads.append(await manager.download(from: url, to: .file(file)))
        }
        for download in downloads {
            _ = try await download.fileURL
        }
        await manager.invalidate()
    }

    private static func runTool(_ path: String?, _ arguments: [String]) throws {
        guard let path else { throw BenchmarkError("not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(path) exited with \(process.terminationStatus)")
        }
    }
}
