@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// curl's and wget's trust flags: `--cacert`, `--pinnedpubkey`, `-k`, against real TLS on
/// loopback (``TLSServer``).
@Suite(.timeLimit(.minutes(1)), .enabled(if: TLSServer.isAvailable, "the openssl command is not installed"))
struct DLTrustTests {
    @Test func aPrivateAuthorityPinsAndInsecureMode() async throws {
        let body = Data((0..<80_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let server = try await TLSServer.start(files: ["f.bin": body])
        defer { server.stop() }
        try await withFixture(startsManager: false) { fixture in
            let url = server.url("f.bin").absoluteString
            guard DownloadManager.Configuration.automaticMeansLibcurl, TransportUnderTest.isLibcurlAvailable else {
                // URLSession cannot honour a trust rule: the file fails, saying so.
                let refused = try await DLChild.run(["--cacert", server.authority.path, url], in: fixture)
                #expect(refused.status == 1, "\(refused.errors)")
                #expect(refused.errors.contains("cannot be honoured by the URLSession transport"), "\(refused.errors)")
                return
            }
            let unknown = try await DLChild.run(["-O", "a.bin", url], in: fixture)
            #expect(unknown.status == 5, "\(unknown.output)\(unknown.errors)")
            #expect(unknown.errors.contains("failed a.bin: server trust failed"), "\(unknown.errors)")

            let trusted = try await DLChild.run(["--cacert", server.authority.path, "-O", "b.bin", url], in: fixture)
            #expect(trusted.status == 0, "\(trusted.output)\(trusted.errors)")
            #expect(try Data(contentsOf: fixture.file("b.bin")) == body)

            let pin = try await server.publicKeyPin()
            let wrong = Data(repeating: 1, count: 32).base64EncodedString()
            let pinned = try await DLChild.run(
                [
                    "--cacert", server.authority.path, "--pinnedpubkey", "sha256//\(wrong);sha256//\(pin)", "-O",
                    "c.bin", url,
                ],
                in: fixture)
            #expect(pinned.status == 0, "\(pinned.output)\(pinned.errors)")
            let refused = try await DLChild.run(
                ["--cacert", server.authority.path, "--pinnedpubkey", "sha256//\(wrong)", "-O", "d.bin", url],
                in: fixture)
            #expect(refused.status == 5, "\(refused.output)\(refused.errors)")
            #expect(refused.errors.contains("rule for * (1 authority, 1 pin)"), "\(refused.errors)")

            let insecure = try await DLChild.run(["-k", "-O", "e.bin", url], in: fixture)
            #expect(insecure.status == 0, "\(insecure.output)\(insecure.errors)")
            #expect(insecure.errors.hasPrefix("dl: WARNING: certificates are not checked (-k)"), "\(insecure.errors)")
        }
    }

    @Test func aClientCertificateFromTheCommandLine() async throws {
        let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        let server = try await TLSServer.start(files: ["f.bin": body], requiresClientCertificate: true)
        defer { server.stop() }
        guard DownloadManager.Configuration.automaticMeansLibcurl, TransportUnderTest.isLibcurlAvailable else { return }
        try await withFixture(startsManager: false) { fixture in
            let url = server.url("f.bin").absoluteString
            let ca = server.authority.path
            let without = try await DLChild.run(["--cacert", ca, "-O", "a.bin", url], in: fixture)
            #expect(without.status == 4, "\(without.errors)")
            let pem = try await DLChild.run(
                [
                    "--cacert", ca, "--cert", server.clientCertificate.path, "--key", server.clientKey.path, "-O",
                    "b.bin", url,
                ],
                in: fixture)
            #expect(pem.status == 0, "\(pem.errors)")
            let p12 = try await DLChild.run(
                ["--cacert", ca, "--cert", server.clientPKCS12.path + ":secret", "-O", "c.bin", url], in: fixture)
            #expect(p12.status == 0, "\(p12.errors)")
            #expect(try Data(contentsOf: fixture.file("c.bin")) == body)
        }
    }
}
