import DownstreamTesting
import Foundation

/// An nginx of the `rtt` benchmark's own, under `/dev/shm/rtt-<pid>` (or `--directory`): one
/// static file, served over plain HTTP/1.1 on one port and over HTTPS with HTTP/2 on another,
/// with a certificate for 127.0.0.1 from a certificate authority made for the run by the
/// `openssl` command (`ca.pem`, which the clients are given). nginx runs in the foreground as a
/// child of this process and is stopped with it.
final class RTTNginx {
    static let path: String? = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let openSSLPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    let directory: URL
    let plainPort: Int
    let tlsPort: Int
    /// The certificate authority of the server's certificate (PEM).
    let authority: URL
    private let process: Process

    /// Writes the file (`body`, as `/small.bin`), the certificates and the configuration into
    /// `directory`, and starts nginx; returns once both ports answer.
    init(directory: URL, body: Data) throws {
        guard let nginx = Self.path, let openssl = Self.openSSLPath else {
            throw BenchmarkError("nginx and openssl are needed")
        }
        self.directory = directory
        let www = directory.appendingPathComponent("www", isDirectory: true)
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        try body.write(to: www.appendingPathComponent("small.bin"))
        authority = directory.appendingPathComponent("ca.pem")
        try Self.makeCertificates(in: directory, openssl: openssl)
        plainPort = try Self.freePort()
        tlsPort = try Self.freePort()
        let path = directory.path
        let configuration = """
            worker_processes 1;
            daemon off;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(path)/client-body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                sendfile on;
                keepalive_requests 100000;
                keepalive_timeout 120s;
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(plainPort);
                    root \(www.path);
                }
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(path)/server.pem;
                    ssl_certificate_key \(path)/server.key;
                    root \(www.path);
                }
            }

            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", path, "-c", file.path]
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        for port in [plainPort, tlsPort] {
            guard Self.waitUntilListening(port) else {
                stop()
                let log =
                    (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                throw BenchmarkError("nginx did not start on port \(port): \(log)")
            }
        }
    }

    /// Stops nginx (SIGTERM to its master, which ends its worker) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A certificate authority (`ca.pem`) and a certificate for IP 127.0.0.1 it signed
    /// (`server.pem`, `server.key`), with P-256 keys.
    private static func makeCertificates(in directory: URL, openssl: String) throws {
        let extensions = directory.appendingPathComponent("server.ext")
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".write(
            to: extensions, atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for arguments in [
            ["req", "-x509"] + key + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=Downstream RTT benchmark CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            ["req"] + key + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "30", "-extfile", "server.ext",
            ],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchmarkError("openssl \(arguments[0]) exited with \(process.terminationStatus)")
            }
        }
    }

    /// A port of 127.0.0.1 that was free a moment ago.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, POSIXSocket.streamType, 0)
        guard descriptor >= 0 else { throw BenchmarkError("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether 127.0.0.1:`port` accepts a connection within 5 seconds.
    private static func waitUntilListening(_ port: Int) -> Bool {
        for _ in 0..<100 {
            let descriptor = socket(AF_INET, POSIXSocket.streamType, 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(descriptor)
            if connected { return true }
            usleep(50_000)
        }
        return false
    }
}
