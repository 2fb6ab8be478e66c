import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One measured download, in a child process: `child --engine E --url U --destination PATH
/// [--disk-bytes-per-second N] [--sha256 HEX] [--connections N] [--connection-checkpoint-kib N]
/// [--store DIR] [--cacert PEM]` (a store of its own by default; a given one is continued, as after a relaunch; with
/// `--cacert`, that authority alone is trusted, as by `curl --cacert`). Prints `wall=<s> cpu=<s> user=<s>
/// peak-kib=<KiB>`.
///
/// Engines: `downstream` (its default transport: libcurl on Linux), `downstream-urlsession`
/// (Downstream over URLSession), `urlsession` (a plain URLSession delegate), `curl` (the curl
/// command line, whose own CPU time and peak memory are reported, not this process's), `aria2`
/// (`aria2c -xN -sN`, likewise). With `--count`, also `floor-transport` and `floor-guarantees`
/// (`SmallFileFloor`: the transport, and the transport with the file discipline, without the
/// download model).
enum ChildRun {
    static let command = "child"

    static func main(_ arguments: [String]) async -> Int32 {
        let options = Options(arguments)
        guard let engine = options.string("engine"), let url = options.string("url").flatMap(URL.init(string:)),
            let path = options.string("destination")
        else {
            print("usage: child --engine downstream|urlsession --url U --destination PATH")
            return 2
        }
        let destination = URL(fileURLWithPath: path)
        let rate = options.int("disk-bytes-per-second", default: 0)
        let throttle = rate > 0 ? DiskThrottle(bytesPerSecond: rate) : nil

        let clock = ContinuousClock()
        let start = clock.now
        if let count = options.string("count").flatMap(Int.init) {
            // Many files: `destination` is a directory; file k comes from `url?i=k`.
            let limit = options.int("limit", default: 8)
            do {
                if engine == "curl" {
                    let figures = try CurlCommand.download(
                        (0..<count).map {
                            (
                                Self.url(url, index: $0),
                                destination.appendingPathComponent("\($0).bin", isDirectory: false)
                            )
                        },
                        parallel: limit)
                    print(
                        "wall=\(seconds(start.duration(to: clock.now))) cpu=\(figures.cpu) peak-kib=\(figures.peakKiB)")
                    return 0
                }
                let allocations: Int64
                if let discipline = floorDiscipline(engine) {
                    allocations = try await SmallFileFloor.run(
                        from: url, count: count, limit: limit, into: destination, discipline: discipline)
                } else {
                    allocations = try await drainWithDownstream(
                        url, count: count, limit: limit, into: destination,
                        transport: engine == "downstream" ? .automatic : .urlSession)
                }
                print(
                    "wall=\(seconds(start.duration(to: clock.now))) cpu=\(cpuSeconds()) peak-kib=\(peakResidentKiB())"
                        + (allocations >= 0 ? " allocations-per-file=\(Double(allocations) / Double(count))" : ""))
                return 0
            } catch {
                print("failed \(error)")
                return 1
            }
        }
        do {
            switch engine {
            case "downstream", "downstream-urlsession":
                try await downloadWithDownstream(
                    url, to: destination, diskRate: rate, sha256: options.string("sha256"),
                    transport: engine == "downstream" ? .automatic : .urlSession,
                    connections: options.int("connections", default: 1),
                    connectionCheckpointBytes: options.int("connection-checkpoint-kib", default: 0) << 10,
                    store: options.string("store").map { URL(fileURLWithPath: $0, isDirectory: true) },
                    caCertificate: options.string("cacert"))
            case "aria2":
                let figures = try CurlCommand.downloadWithAria2(
                    url, to: destination, connections: options.int("connections", default: 4))
                print("wall=\(seconds(start.duration(to: clock.now))) cpu=\(figures.cpu) peak-kib=\(figures.peakKiB)")
                return 0
            case "urlsession": try PlainURLSessionDownload(url: url, destination: destination, throttle: throttle).run()
            case "curl":
                let figures = try CurlCommand.download(url, to: destination, caCertificate: options.string("cacert"))
                print(
                    "wall=\(seconds(start.duration(to: clock.now))) cpu=\(figures.cpu) user=\(figures.user)"
                        + " peak-kib=\(figures.peakKiB)")
                return 0
            default:
                print("unknown engine \(engine)")
                return 2
            }
        } catch {
            print("failed \(error)")
            return 1
        }
        let wall = start.duration(to: clock.now)
        print(
            "wall=\(seconds(wall)) cpu=\(cpuSeconds()) user=\(seconds(usage(RUSAGE_SELF).ru_utime))"
                + " peak-kib=\(peakResidentKiB())")
        return 0
    }

    static func downloadWithDownstream(
        _ url: URL, to destination: URL, diskRate: Int, sha256: String?,
        transport: DownloadManager.Configuration.Network.TransportChoice = .automatic, connections: Int = 1,
        connectionCheckpointBytes: Int = 0, store: URL? = nil, caCertificate: String? = nil
    ) async throws {
        let manager = try DownloadManager(
            configuration: .init(identifier: "benchmark") {
                $0.network.transport = transport
                $0.network.maximumConnectionsPerFile = connections
                $0.network.maximumConnectionsPerHost = max(6, connections)
                // Every connection takes a slot of the limits: room for all of them.
                $0.scheduling.maximumConcurrentDownloads = max(6, connections)
                $0.scheduling.maximumConcurrentDownloadsPerHost = max(4, connections)
                $0.storage.directory =
                    store ?? destination.deletingLastPathComponent().appendingPathComponent(".store-\(getpid())")
                $0.storage.simulatedDiskBytesPerSecond = diskRate > 0 ? diskRate : nil
                if connectionCheckpointBytes > 0 {
                    $0.storage.checkpoints.bytesPerConnection = Int64(connectionCheckpointBytes)
                }
                // As `curl --cacert`: the given authority alone.
                if let caCertificate, let host = url.host {
                    $0.trust.rules = [
                        TrustRule(
                            host: host, additionalAuthorities: [.file(URL(fileURLWithPath: caCertificate))],
                            trustsOnlyAdditionalAuthorities: true)
                    ]
                }
            })
        var request = DownloadRequest(url: url, to: .file(destination, ifExists: .replace))
        request.expectedDigest = sha256.map { .sha256($0) }
        _ = try await manager.download(request).fileURL
    }

    /// `url` with the query `i=<index>`: one URL per file, as many files of one server.
    static func url(_ url: URL, index: Int) -> URL {
        URL(string: url.absoluteString + "?i=\(index)")!
    }

    /// Downloads `count` files, `limit` at once, into `directory` through one manager.
    /// - Returns: the heap allocations made from the first download's start to the last one's end.
    static func drainWithDownstream(
        _ url: URL, count: Int, limit: Int, into directory: URL,
        transport: DownloadManager.Configuration.Network.TransportChoice
    ) async throws -> Int64 {
        let manager = try DownloadManager(
            configuration: .init(identifier: "benchmark-files") {
                $0.network.transport = transport
                $0.storage.directory = directory.appendingPathComponent(".store-\(getpid())")
                $0.scheduling.maximumConcurrentDownloads = limit
                $0.scheduling.maximumConcurrentDownloadsPerHost = limit
                // As many connections as downloads run (the floor and curl have them): with the
                // default 6, two of 8 downloads wait inside libcurl for a connection.
                $0.network.maximumConnectionsPerHost = limit
            })
        var downloads: [Download] = []
        let allocations = AllocationCount.now
        for index in 0..<count {
            downloads.append(
                await manager.download(
                    from: self.url(url, index: index),
                    to: .file(directory.appendingPathComponent("\(index).bin", isDirectory: false))))
        }
        for download in downloads {
            _ = try await download.fileURL
        }
        let made = AllocationCount.now - allocations
        await manager.invalidate()
        return made
    }

    /// The floor's engines: `floor-transport` and `floor-guarantees` (see `SmallFileFloor`).
    static func floorDiscipline(_ engine: String) -> SmallFileFloor.Discipline? {
        guard engine.hasPrefix("floor-") else { return nil }
        return SmallFileFloor.Discipline(rawValue: String(engine.dropFirst("floor-".count)))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// User plus system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        cpuSeconds(of: usage(RUSAGE_SELF))
    }

    /// User plus system CPU time of `usage`.
    static func cpuSeconds(of usage: rusage) -> Double {
        seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }

    /// What a child run of this executable with `arguments` (and `environment`, this process's
    /// otherwise) printed, as its `name=value` fields, once it exited with 0; otherwise an error
    /// naming `what` and the child's output.
    static func figures(
        of arguments: [String], what: String, environment: [String: String]? = nil
    ) throws -> [String: String] {
        let process = Process()
        process.executableURL = Bundle.main.executableURL
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(what) child exited with \(process.terminationStatus): \(output)")
        }
        var fields: [String: String] = ["output": output]
        for field in output.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// This process's resident memory now (VmRSS), in bytes; 0 where `/proc` is not.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ")[1]) ?? 0) * 1024
        }
        return 0
    }

    /// This process's peak resident memory in KiB, as the kernel counts it.
    static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return Int(usage(RUSAGE_SELF).ru_maxrss) / 1024  // Darwin reports bytes
        }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ")[1]) ?? -1
        }
        return -1
    }

    /// The resources used by this process (`RUSAGE_SELF`) or its waited-for children
    /// (`RUSAGE_CHILDREN`).
    #if os(Linux)
        static func usage(_ who: __rusage_who) -> rusage {
            var usage = rusage()
            getrusage(__rusage_who_t(who.rawValue), &usage)
            return usage
        }
    #else
        static func usage(_ who: Int32) -> rusage {
            var usage = rusage()
            getrusage(who, &usage)
            return usage
        }
    #endif
}
