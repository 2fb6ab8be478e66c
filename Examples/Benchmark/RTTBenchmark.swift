import DownstreamTesting
import Foundation

/// `downstream-benchmark rtt [--rtt-ms 20] [--count 1000] [--size 65536] [--limit 8] [--runs 3]
/// [--protocols http1,h2] [--connections <limit>] [--directory /dev/shm]`: many small files over a network with a
/// round-trip time, which loopback does not have: a ``DelayingProxy`` in front of the server holds
/// each direction back half the round trip, and a new connection's first bytes one round trip
/// more (the TCP handshake).
///
/// The server is an nginx of the benchmark's own (``RTTNginx``): HTTP/1.1 in clear, and HTTPS
/// with HTTP/2 (a certificate authority made for the run, given to every client). Without nginx,
/// HTTP/1.1 only, from the benchmark's ``TestServer``. Clients, each in a child process
/// (``RTTChild``), in rotating runs: Downstream on its default transport, `curl -Z
/// --parallel-max <limit>` and, when installed, `aria2c -j <limit>`. Printed: each client's
/// median wall time, the median of Downstream's per-run ratios to curl, and, from the proxy's
/// timeline (``DelayingProxy/Timeline``), each client's turnaround: the time from the proxy's last
/// delivery to the client on a connection to the client's next bytes on it (over HTTP/1.1, from
/// the last byte of a response leaving the proxy to the first byte of the next request arriving),
/// each run's median and mean, then their medians over runs; and its connections per run.
/// Downstream's `maximumConnectionsPerHost` is `--connections`, the limit by default (with its own
/// default, 6, two of 8 downloads over HTTP/1.1 wait in libcurl for a connection).
struct RTTBenchmark {
    let roundTripTime: Duration
    let count: Int
    let size: Int
    let limit: Int
    let runs: Int
    let protocols: [String]
    /// Downstream's `maximumConnectionsPerHost`.
    let connections: Int
    let root: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        roundTripTime = .milliseconds(max(0, options.int("rtt-ms", default: 20)))
        count = max(1, options.int("count", default: 1000))
        size = max(1, options.int("size", default: 65536))
        limit = max(1, options.int("limit", default: 8))
        runs = max(1, options.int("runs", default: 3))
        connections = max(1, options.int("connections", default: limit))
        protocols = (options.string("protocols") ?? "http1,h2").split(separator: ",").map(String.init)
        root = URL(fileURLWithPath: options.string("directory") ?? "/dev/shm", isDirectory: true)
            .appendingPathComponent("rtt-\(getpid())", isDirectory: true)
    }

    func run() async -> Int32 {
        await Benchmark.run(in: root) { try await measure() }
    }

    private func measure() async throws -> Int32 {
        let body = Body.pattern(count: Int64(size), seed: 11)
        var engines = ["downstream"]
        if CurlCommand.path != nil { engines.append("curl") }
        if SegmentsBenchmark.aria2Path != nil { engines.append("aria2") }
        print(
            "Downstream rtt benchmark: \(count) files of \(size) bytes, \(limit) at once, through a proxy that adds"
                + " \(roundTripTime.milliseconds) ms of round-trip time;")
        print(
            "each client in a child process; \(runs) rotating runs, medians; Downstream with \(connections)"
                + " connections per host")
        if CurlCommand.path == nil { print("curl is not installed: no curl baseline") }
        if SegmentsBenchmark.aria2Path == nil { print("aria2c is not installed: no aria2 baseline") }

        var nginx: RTTNginx?
        var testServer: TestServer?
        defer {
            nginx?.stop()
            testServer?.shutdown()
        }
        var targets: [(name: String, port: Int, scheme: String, authority: URL?)] = []
        if RTTNginx.path != nil, RTTNginx.openSSLPath != nil {
            let server = try RTTNginx(
                directory: root.appendingPathComponent("nginx", isDirectory: true), body: body.bytes(0..<body.count))
            nginx = server
            targets = [
                ("HTTP/1.1", server.plainPort, "http", nil),
                ("HTTPS, HTTP/2", server.tlsPort, "https", server.authority),
            ]
        } else {
            print("nginx or openssl is not installed: HTTP/1.1 only, from the benchmark's own server")
            let server = try TestServer()
            var route = Route(body: body)
            route.etag = "\"6745a1b2-\(size)\""
            route.lastModified = "Tue, 26 Nov 2024 10:00:00 GMT"
            server.setRoute("/small.bin", route)
            testServer = server
            targets = [("HTTP/1.1", server.port, "http", nil)]
        }
        targets = targets.filter { protocols.contains($0.scheme == "http" ? "http1" : "h2") }

        var pass = true
        for target in targets {
            let proxy = try DelayingProxy(upstreamPort: target.port, roundTripTime: roundTripTime)
            defer { proxy.shutdown() }
            let url = URL(string: "\(target.scheme)://127.0.0.1:\(proxy.port)/small.bin")!
            var timelines: [String: [DelayingProxy.Timeline]] = [:]
            let measured = try await RotatingRuns(engines: engines, runs: runs) { engine, run in
                let directory = root.appendingPathComponent("\(engine)-\(run)", isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                _ = proxy.takeTimeline()
                let sample = try measureChild(engine, url: url, directory: directory, authority: target.authority)
                timelines[engine, default: []].append(proxy.takeTimeline())
                try body.checkSampleFiles(in: directory, count: count, writtenBy: engine)
                try FileManager.default.removeItem(at: directory)
                return sample
            }
            print("\(target.name) (\(url.absoluteString))")
            print("  client       wall s   files/s   CPU s   turnaround us     connections")
            print("                                            median / mean")
            for engine in engines {
                let samples = measured.samples[engine]!
                let wall = Benchmark.middle(samples.map(\.wall))
                let turnaround = timelines[engine]!.compactMap(\.medianTurnaround).map { Double($0.microseconds) }
                let means = timelines[engine]!.filter { !$0.turnarounds.isEmpty }.map {
                    Double($0.turnarounds.reduce(.zero, +).microseconds) / Double($0.turnarounds.count)
                }
                let connections = timelines[engine]!.map { Double($0.connections) }
                print(
                    "  " + Benchmark.pad(Self.names[engine] ?? engine, 13) + Benchmark.pad(Benchmark.format(wall), 9)
                        + Benchmark.pad(String(Int(Double(count) / wall)), 10)
                        + Benchmark.pad(Benchmark.format(Benchmark.middle(samples.map(\.cpu))), 8)
                        + Benchmark.pad(
                            turnaround.isEmpty
                                ? "-" : "\(Int(Benchmark.middle(turnaround))) / \(Int(Benchmark.middle(means)))", 18)
                        + String(Int(Benchmark.middle(connections))))
            }
            if engines.contains("curl") {
                let (wall, cpu) = measured.ratios(to: "curl")
                pass = pass && wall <= 1.0
                print(
                    "  Downstream / curl: wall \(Benchmark.format(wall))x  CPU \(Benchmark.format(cpu))x (target wall <= 1.0x)"
                )
            }
            if engines.contains("aria2") {
                let (wall, _) = measured.ratios(to: "aria2")
                print("  Downstream / aria2c: wall \(Benchmark.format(wall))x")
            }
        }
        print("turnaround: at the proxy, per connection, from the end of its last delivery to the client to the")
        print("client's next bytes arriving (HTTP/1.1: last byte of a response out -> first byte of the next request")
        print("in); each run's median and mean, their medians over runs")
        print("target " + (pass ? "met" : "MISSED"))
        return pass ? 0 : 3
    }

    /// Runs one client in a child process (``RTTChild``) and reads its figures.
    private func measureChild(_ engine: String, url: URL, directory: URL, authority: URL?) throws -> Benchmark.Sample {
        let fields = try ChildRun.figures(
            of: [
                RTTChild.command, "--engine", engine, "--url", url.absoluteString, "--destination", directory.path,
                "--count", String(count), "--limit", String(limit), "--connections", String(connections),
            ] + (authority.map { ["--ca", $0.path] } ?? []),
            what: engine)
        guard let wall = fields["wall"].flatMap(Double.init), let cpu = fields["cpu"].flatMap(Double.init),
            let peak = fields["peak-kib"].flatMap(Int.init)
        else { throw BenchmarkError("cannot read the child's figures: \(fields["output"] ?? "")") }
        return Benchmark.Sample(wall: wall, cpu: cpu, peakKiB: peak)
    }

    private static let names = ["downstream": "Downstream", "curl": "curl -Z", "aria2": "aria2c"]
}

extension Duration {
    /// The duration in whole microseconds.
    fileprivate var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }

    /// The duration in whole milliseconds.
    fileprivate var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
