import Foundation
import DownstreamTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Real TLS on loopback, made by the `openssl` command: a CA, a server certificate it signed (for
/// 127.0.0.1 and localhost), and `openssl s_server -WWW` serving a folder of files over them.
/// Nil from ``start(files:)`` when the machine has no `openssl` (tests then skip, saying so).
final class TLSServer: Sendable {
    static let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl.path) }

    /// The folder of the CA, the certificates and the served files.
    let directory: URL
    let port: Int
    private let server: SpawnedProcess

    /// The CA's certificate, PEM.
    var authority: URL { directory.appendingPathComponent("ca.pem") }
    /// The server's certificate, PEM.
    var certificate: URL { directory.appendingPathComponent("server.pem") }

    private init(directory: URL, port: Int, server: SpawnedProcess) {
        self.directory = directory
        self.port = port
        self.server = server
    }

    /// A client certificate the CA signed, PEM, with its key (`client.key`), and as PKCS#12
    /// (`client.p12`, password `secret`).
    var clientCertificate: URL { directory.appendingPathComponent("client.pem") }
    var clientKey: URL { directory.appendingPathComponent("client.key") }
    var clientPKCS12: URL { directory.appendingPathComponent("client.p12") }

    /// A new folder with a CA (`ca.pem`, `ca.key`), a server certificate it signed for 127.0.0.1
    /// and localhost (`server.pem`, `server.key`), another with a key of its own (`other.pem`,
    /// `other.key`), and with `clientCertificate` a client certificate (see
    /// ``clientCertificate``).
    static func makeCertificates(clientCertificate: Bool = false) async throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).writeWithoutSync(
            to: directory.appendingPathComponent("ext.cnf"))
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await run(
            ["req", "-x509"] + curve + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Test CA"],
            in: directory)
        for name in ["server", "other"] {
            try await run(
                ["req"] + curve + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=127.0.0.1"],
                in: directory)
            try await run(
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                    "-out", "\(name).pem", "-days", "2", "-extfile", "ext.cnf",
                ], in: directory)
        }
        if clientCertificate {
            try await run(
                ["req"] + curve + ["-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=client"], in: directory)
            try await run(
                [
                    "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                    "client.pem", "-days", "2",
                ], in: directory)
            try await run(
                [
                    "pkcs12", "-export", "-in", "client.pem", "-inkey", "client.key", "-out", "client.p12", "-passout",
                    "pass:secret",
                ], in: directory)
        }
        return directory
    }

    /// Makes the certificates in a new folder, writes `files` (name → bytes) into its `www`, and
    /// starts the server; with `requiresClientCertificate`, it accepts only clients with a
    /// certificate its CA signed.
    static func start(files: [String: Data], requiresClientCertificate: Bool = false) async throws -> TLSServer {
        let directory = try await makeCertificates(clientCertificate: requiresClientCertificate)
        let www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        for (name, data) in files { try data.writeWithoutSync(to: www.appendingPathComponent(name)) }
        let verify = requiresClientCertificate ? ["-Verify", "1", "-CAfile", "../ca.pem"] : []
        let pipe = try SpawnedProcess.pipe()
        let server = try SpawnedProcess(
            openssl, ["s_server", "-WWW", "-cert", "../server.pem", "-key", "../server.key", "-accept", "0"] + verify,
            directory: www, output: pipe.write, errors: pipe.write)
        close(pipe.write)
        let output = OutputReader(pipe.read)
        output.start()
        // "ACCEPT [::]:PORT"
        guard let text = await output.wait(until: { $0.contains("ACCEPT") && $0.contains("\n") }),
            let line = text.split(separator: "\n").first(where: { $0.contains("ACCEPT") }),
            let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            server.send(SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl s_server did not start"])
        }
        return TLSServer(directory: directory, port: port, server: server)
    }

    func url(_ name: String) -> URL {
        URL(string: "https://127.0.0.1:\(port)/\(name)")!
    }

    /// The SHA-256 of the server key's SubjectPublicKeyInfo, base64 (curl's pin).
    func publicKeyPin() async throws -> String {
        try await Self.publicKeyPin(of: "server", in: directory)
    }

    /// The pin of the key of certificate `name` (`name.pem`) in `directory`.
    static func publicKeyPin(of name: String, in directory: URL) async throws -> String {
        try await run(["x509", "-in", "\(name).pem", "-pubkey", "-noout", "-out", "\(name).pub.pem"], in: directory)
        try await run(
            ["pkey", "-pubin", "-in", "\(name).pub.pem", "-outform", "der", "-out", "\(name).pub.der"], in: directory)
        return try await output(["dgst", "-sha256", "-binary", "\(name).pub.der"], in: directory).base64EncodedString()
    }

    /// The CA's certificate as DER.
    func authorityDER() async throws -> Data {
        try await Self.run(["x509", "-in", "ca.pem", "-outform", "der", "-out", "ca.der"], in: directory)
        return try Data(contentsOf: directory.appendingPathComponent("ca.der"))
    }

    func stop() {
        server.send(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `openssl` with `arguments` in `directory`; throws when it fails.
    static func run(_ arguments: [String], in directory: URL) async throws {
        _ = try await output(arguments, in: directory)
    }

    /// What `openssl` with `arguments` writes to its standard output.
    static func output(_ arguments: [String], in directory: URL) async throws -> Data {
        let pipe = try SpawnedProcess.pipe()
        let child = try SpawnedProcess(openssl, arguments, directory: directory, output: pipe.write)
        close(pipe.write)
        let reader = OutputReader(pipe.read)
        reader.start()
        let text = await reader.data()
        guard await child.ending().status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments[0]) failed"])
        }
        return text
    }
}
