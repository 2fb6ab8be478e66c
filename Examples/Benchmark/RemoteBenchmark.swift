import DownstreamTesting
import Foundation

/// `downstream-benchmark remote --url URL[,URL…] [--cacert PEM] [--mib 1024] [--runs 5]
/// [--directory DIR] [--slow-disk-mbps N]`: one big file from a server of your own (HTTPS, HTTP/2),
/// through Downstream (its default transport) and the curl command line (`curl --cacert`), each
/// in a child process, in rotating runs; for each URL the medians, and Downstream / curl as the
/// medians of the runs' wall and CPU ratios. The file must be the benchmark's pattern
/// (`downstream-benchmark pattern --mib N --output PATH` writes it): every download is compared
/// with it byte by byte. With `--slow-disk-mbps`, Downstream also downloads each URL once onto a
/// disk that slow: its peak memory says whether backpressure holds over that protocol.
///
/// The server used for issue 42 (nginx 1.22; a self-signed certificate for `localhost` made with
/// `openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost -addext
/// subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout key.pem -out cert.pem`), started with
/// `nginx -c $PWD/nginx.conf -p $PWD`:
///
///     worker_processes 1;
///     pid nginx.pid;
///     error_log error.log;
///     events { worker_connections 64; }
///     http {
///         access_log access.log;          # shows each request's protocol: HTTP/2.0 or HTTP/1.1
///         sendfile on;
///         ssl_certificate cert.pem;
///         ssl_certificate_key key.pem;
///         server { listen 127.0.0.1:28080; root www; }                 # plain HTTP
///         server { listen 127.0.0.1:28443 ssl; root www; }             # HTTP/1.1 with TLS
///         server { listen 127.0.0.1:28444 ssl http2; root www; }       # HTTP/2 with TLS
///     }
///
/// and `www/file.bin` written by `pattern --mib 1024`. Then, into tmpfs:
///
///     downstream-benchmark remote --cacert cert.pem --directory /dev/shm --url \
///         https://localhost:28444/file.bin,https://localhost:28443/file.bin,http://127.0.0.1:28080/file.bin
///
/// Both clients negotiate HTTP/2 with ALPN where the server offers it (curl's and libcurl's
/// default for HTTPS); curl's column says which version it got.
struct RemoteBenchmark {
    let urls: [URL]
    let caCertificate: String?
    let mebibytes: Int
    let runs: Int
    let slowDiskBytesPerSecond: Int
    let root: URL

    init(arguments: [String]) {
        let options = Options(arguments)
        urls = (options.string("url") ?? "").split(separator: ",").compactMap { URL(string: String($0)) }
        caCertificate = options.string("cacert").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        mebibytes = max(1, options.int("mib", default: 1024))
        runs = max(1, options.int("runs", default: 5))
        slowDiskBytesPerSecond = options.int("slow-disk-mbps", default: 0) * 1_000_000
        root = Benchmark.workDirectory(options, name: "remote")
    }

    func run() async -> Int32 {
        guard !urls.isEmpty else {
            print("usage: downstream-benchmark remote --url URL[,URL…] [--cacert PEM] [--mib 1024] [--runs 5]")
            return 2
        }
        guard CurlCommand.path != nil else {
            print("curl is not installed: this benchmark compares with it")
            return 2
        }
        return await Benchmark.run(in: root) { try await measure() }
    }

    private func measure() async throws -> Int32 {
        let body = Body.pattern(count: Int64(mebibytes) << 20, seed: 7)
        let trust = caCertificate.map { ["--cacert", $0] } ?? []
        print(
            "Remote benchmark: \(mebibytes) MiB, \(runs) runs of each client, interleaved, each in a child"
                + " process, into \(root.deletingLastPathComponent().path); medians")
        print("url                                       client      HTTP  wall s   MB/s   CPU s  user s  peak MiB")
        for url in urls {
            var versions: [String: String] = [:]
            let measured = try await RotatingRuns(engines: ["downstream", "curl"], runs: runs) { engine, _ in
                let destination = root.appendingPathComponent("\(engine).bin")
                let (sample, fields) = try await Benchmark.measureWithFields(
                    engine, url: url, destination: destination, rate: 0, extraArguments: trust)
                if let version = fields["http-version"] { versions[engine] = version }
                if let mismatch = try body.firstMismatch(inFileAt: destination) {
                    throw BenchmarkError("\(engine) wrote a wrong file (first difference at byte \(mismatch))")
                }
                try FileManager.default.removeItem(at: destination)
                return sample
            }
            for engine in ["downstream", "curl"] {
                let samples = measured.samples[engine]!
                let wall = Benchmark.middle(samples.map(\.wall))
                print(
                    Benchmark.pad(url.absoluteString, 42) + Benchmark.pad(engine, 12)
                        + Benchmark.pad(versions[engine] ?? "-", 6) + Benchmark.pad(Benchmark.format(wall), 8)
                        + Benchmark.pad(String(Int(Double(body.count) / wall / 1e6)), 7)
                        + Benchmark.pad(Benchmark.format(Benchmark.middle(samples.map(\.cpu))), 7)
                        + Benchmark.pad(Benchmark.format(Benchmark.middle(samples.map(\.user))), 8)
                        + Benchmark.format(Benchmark.middle(samples.map { Double($0.peakKiB) }) / 1024))
            }
            let (wall, cpu) = measured.ratios(to: "curl")
            let user = Benchmark.middle(
                zip(measured.samples["downstream"]!, measured.samples["curl"]!).map { $0.user / $1.user })
            print(
                "  Downstream / curl  wall \(Benchmark.format(wall))x  CPU \(Benchmark.format(cpu))x"
                    + "  user \(Benchmark.format(user))x (medians of per-run ratios; run ratios wall "
                    + measured.runRatios(to: "curl").map { Benchmark.format($0.wall) }.joined(separator: " ")
                    + ", CPU "
                    + measured.runRatios(to: "curl").map { Benchmark.format($0.cpu) }.joined(separator: " ") + ")")
            if slowDiskBytesPerSecond > 0 {
                let destination = root.appendingPathComponent("slow.bin")
                let sample = try await Benchmark.measure(
                    "downstream", url: url, destination: destination, rate: slowDiskBytesPerSecond,
                    extraArguments: trust)
                if let mismatch = try body.firstMismatch(inFileAt: destination) {
                    throw BenchmarkError("the slow-disk download wrote a wrong file (first difference at \(mismatch))")
                }
                try FileManager.default.removeItem(at: destination)
                let diskSeconds = Double(body.count) / Double(slowDiskBytesPerSecond)
                print(
                    "  slow disk \(slowDiskBytesPerSecond / 1_000_000) MB/s: Downstream wall "
                        + "\(Benchmark.format(sample.wall / diskSeconds))x the disk's own time, peak "
                        + "\(Benchmark.format(Double(sample.peakKiB) / 1024)) MiB")
            }
        }
        return 0
    }

    /// `downstream-benchmark pattern --mib N --output PATH`: writes the benchmark's body (the
    /// pattern the remote benchmark checks against) to a file, for a server to serve.
    static func writePattern(_ arguments: [String]) -> Int32 {
        let options = Options(arguments)
        guard let path = options.string("output") else {
            print("usage: downstream-benchmark pattern --mib N --output PATH")
            return 2
        }
        let body = Body.pattern(count: Int64(max(1, options.int("mib", default: 1024))) << 20, seed: 7)
        guard let file = fopen(path, "w") else {
            print("cannot write \(path)")
            return 1
        }
        defer { fclose(file) }
        var written = 0
        body.write(0..<body.count) { block in
            written += fwrite(block.baseAddress, 1, block.count, file)
        }
        guard written == body.count else {
            print("cannot write \(path)")
            return 1
        }
        return 0
    }
}
