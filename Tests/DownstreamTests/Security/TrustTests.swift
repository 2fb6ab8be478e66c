@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Whom downloads trust (``TrustSettings``), against real TLS on loopback (`openssl s_server`
/// with certificates made for the test). libcurl honours every rule; URLSession refuses a request
/// whose host has one instead of checking less than asked.
@Suite(.timeLimit(.minutes(1)), .enabled(if: TLSServer.isAvailable, "the openssl command is not installed"))
struct TrustTests {
    static let body = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    static var managersUseLibcurl: Bool {
        TransportUnderTest.isLibcurlAvailable && DownloadManager.Configuration.automaticMeansLibcurl
    }

    /// Downloads `name` from `server` with `trust`; the download's outcome.
    static func download(
        _ name: String, from server: TLSServer, trust: TrustSettings, monitor: (any DownloadEventMonitor)? = nil
    ) async throws -> Result<URL, DownloadError> {
        try await withFixture({
            $0.trust = trust
            $0.retry.maximumRetries = 0
            if let monitor { $0.eventMonitors = [monitor] }
        }) { fixture in
            let download = await fixture.manager.download(from: server.url(name), to: .directory(fixture.directory))
            let outcome = await download.outcome()
            if case .success(let file) = outcome {
                let saved = try Data(contentsOf: file)
                #expect(saved == body)
            }
            return outcome
        }
    }

    static func rule(_ server: TLSServer, pins: [String] = []) -> TrustRule {
        TrustRule(
            host: "127.0.0.1", additionalAuthorities: [.file(server.authority)],
            publicKeyPins: pins.compactMap { PublicKeyPin(sha256Base64: $0) })
    }

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func aPrivateAuthorityIsTrustedOnlyWhereARuleAddsIt() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body])
        defer { server.stop() }
        var trust = TrustSettings()
        // Without the rule: the platform does not know the test's CA.
        let refused = try await Self.download("f.bin", from: server, trust: trust)
        guard case .failure(let error) = refused else { Issue.record("trusted without the CA"); return }
        #expect(error.kind == .serverTrustFailed)
        #expect(error.urlErrorCode == .serverCertificateUntrusted)
        // PEM from a file, and DER as data, in addition to the platform's, or only them.
        trust.rules = [Self.rule(server)]
        #expect(try await Self.download("f.bin", from: server, trust: trust).get().lastPathComponent == "f.bin")
        trust.rules = [
            TrustRule(
                host: "127.0.0.1", additionalAuthorities: [.data(try await server.authorityDER())],
                trustsOnlyAdditionalAuthorities: true)
        ]
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        // A rule for another host does not apply; a wildcard does not match the bare name.
        trust.rules = [TrustRule(host: "*.127.0.0.1", additionalAuthorities: [.file(server.authority)])]
        await #expect(throws: DownloadError.self) { try await Self.download("f.bin", from: server, trust: trust).get() }
    }

    /// The bundle libcurl reads is the one the manager wrote and checked, held open: a file put in
    /// its place afterwards (an empty one here, which would trust no one) is not read.
    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func aBundleReplacedAfterItWasWrittenIsNotRead() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body])
        defer { server.stop() }
        var trust = TrustSettings()
        trust.rules = [
            TrustRule(
                host: "127.0.0.1", additionalAuthorities: [.file(server.authority)],
                trustsOnlyAdditionalAuthorities: true)
        ]
        try await withFixture({ $0.trust = trust }) { fixture in
            let bundles = fixture.storeDirectory.appendingPathComponent("trust")
            let names = fixture.listing(bundles)
            #expect(names.count == 1)
            for name in names {
                let file = bundles.appendingPathComponent(name)
                try FileManager.default.removeItem(at: file)
                try Data().writeWithoutSync(to: file)
            }
            let file = try await fixture.manager.downloadFile(
                from: server.url("f.bin"), to: .directory(fixture.directory))
            #expect(try Data(contentsOf: file) == Self.body)
        }
    }

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func pinsAcceptTheServersKeyAndRefuseAnyOther() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body])
        defer { server.stop() }
        let pin = try await server.publicKeyPin()
        let other = Data(repeating: 7, count: 32).base64EncodedString()
        var trust = TrustSettings()
        trust.rules = [Self.rule(server, pins: [pin])]
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        // Rotation: either of two keys.
        trust.rules = [Self.rule(server, pins: [other, pin])]
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        // The wrong key: a typed error naming the rule.
        trust.rules = [Self.rule(server, pins: [other])]
        let refused = try await Self.download("f.bin", from: server, trust: trust)
        guard case .failure(let error) = refused else { Issue.record("a wrong pin was accepted"); return }
        #expect(error.kind == .serverTrustFailed)
        #expect(error.reason.contains("rule for 127.0.0.1 (1 authority, 1 pin)"), "\(error.reason)")
        #expect(!error.isResumable)
    }

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func aClientCertificateIsShownToAServerThatRequiresOne() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body], requiresClientCertificate: true)
        defer { server.stop() }
        var trust = TrustSettings()
        trust.rules = [Self.rule(server)]
        let refused = try await Self.download("f.bin", from: server, trust: trust)
        guard case .failure(let error) = refused else { Issue.record("served without a client certificate"); return }
        #expect(error.urlErrorCode == .clientCertificateRequired, "\(error.reason)")
        trust.rules[0].clientIdentity = .pem(certificate: server.clientCertificate, key: server.clientKey)
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        trust.rules[0].clientIdentity = .pkcs12(server.clientPKCS12, password: "secret")
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        // As bytes (libcurl's blobs): what an app read from its keychain or its bundle.
        trust.rules[0].clientIdentity = .pem(
            certificateData: try Data(contentsOf: server.clientCertificate),
            keyData: try Data(contentsOf: server.clientKey))
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        trust.rules[0].clientIdentity = .pkcs12(data: try Data(contentsOf: server.clientPKCS12), password: "secret")
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
    }

    /// An identity provider is asked, with the host's name, before the request goes out; what it
    /// throws fails the download with its words, and is not retried.
    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func anIdentityProviderIsAskedForTheHostAndItsFailureIsTheDownloads() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body], requiresClientCertificate: true)
        defer { server.stop() }
        let asked = Locked<[String]>([])
        let pkcs12 = try Data(contentsOf: server.clientPKCS12)
        var trust = TrustSettings()
        trust.rules = [Self.rule(server)]
        trust.rules[0].clientIdentity = .provided { host in
            asked.withLock { $0.append(host) }
            return .pkcs12(data: pkcs12, password: "secret")
        }
        _ = try await Self.download("f.bin", from: server, trust: trust).get()
        #expect(asked.withLock { $0 } == ["127.0.0.1"])

        struct KeychainLocked: Error, CustomStringConvertible {
            var description: String { "the keychain is locked" }
        }
        trust.rules[0].clientIdentity = .provided { _ in
            asked.withLock { $0.append("failing") }
            throw KeychainLocked()
        }
        let refused = try await withFixture({
            $0.trust = trust
            $0.retry.maximumRetries = 3
        }) { fixture in
            await fixture.manager.download(from: server.url("f.bin"), to: .directory(fixture.directory)).outcome()
        }
        guard case .failure(let error) = refused else { Issue.record("downloaded without an identity"); return }
        #expect(error.urlErrorCode == .clientCertificateRequired)
        #expect(error.reason.contains("the client identity provider for 127.0.0.1 failed: the keychain is locked"))
        #expect(asked.withLock { $0 } == ["127.0.0.1", "failing"])
    }

    /// A redirect to another host is checked by that host's rule: here an HTTP server sends the
    /// download to `localhost` over TLS, whose pin is wrong.
    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func aRedirectIsCheckedByTheRuleOfTheHostItGoesTo() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body])
        defer { server.stop() }
        let wrong = try #require(PublicKeyPin(sha256Base64: Data(repeating: 3, count: 32).base64EncodedString()))
        let pin = try #require(PublicKeyPin(sha256Base64: try await server.publicKeyPin()))
        let target = "https://localhost:\(server.port)/f.bin"
        for (pins, succeeds) in [([wrong], false), ([pin], true)] {
            try await withFixture({
                $0.trust.rules = [
                    TrustRule(host: "localhost", additionalAuthorities: [.file(server.authority)], publicKeyPins: pins)
                ]
                $0.retry.maximumRetries = 0
            }) { fixture in
                var moved = Route(body: .pattern(count: 0))
                moved.redirect = (302, target)
                fixture.server.setRoute("/moved", moved)
                let download = await fixture.manager.download(
                    from: fixture.server.url("/moved"), to: .file(fixture.file("f.bin")))
                let outcome = await download.outcome()
                switch outcome {
                case .success(let file):
                    #expect(succeeds)
                    let saved = try Data(contentsOf: file)
                    #expect(saved == Self.body)
                case .failure(let error):
                    #expect(!succeeds, "\(error)")
                    #expect(error.kind == .serverTrustFailed)
                    #expect(error.reason.contains("rule for localhost (1 authority, 1 pin)"), "\(error.reason)")
                }
            }
        }
    }

    final class Told: DownloadEventMonitor {
        let hosts = Locked<[String]>([])
        func download(_ download: Download, acceptsAnyCertificateOf host: String) {
            hosts.withLock { $0.append(host) }
        }
    }

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func acceptingAnyCertificateIsToldToMonitorsForEveryRequest() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body])
        defer { server.stop() }
        var trust = TrustSettings()
        trust.rules = [.acceptingAnyCertificate(forHost: "127.0.0.1")]
        let told = Told()
        _ = try await Self.download("f.bin", from: server, trust: trust, monitor: told).get()
        #expect(told.hosts.withLock { $0 } == ["127.0.0.1"])
    }

    /// On Linux, where Foundation has no trust hooks: on Apple platforms URLSession honours
    /// the rule in its challenges.
    @Test(.enabled(if: !TransportUnderTest.isApple, "Apple's URLSession checks the rule in its challenge"))
    func urlSessionOnLinuxRefusesARequestWhoseHostHasARule() async throws {
        try await withFixture({
            $0.network.transport = .urlSession
            $0.trust.rules = [
                TrustRule(
                    host: "*", publicKeyPins: [PublicKeyPin(sha256Base64: Data(count: 32).base64EncodedString())!])
            ]
        }) { fixture in
            let download = await fixture.manager.download(
                from: fixture.server.url("/x"), to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(error.reason.contains("the trust rule for * (1 pin)"), "\(error.reason)")
        }
    }

    /// Without rules, a certificate the platform does not trust is the same typed error over
    /// URLSession (on Linux, Foundation reports it as `.unknown` with libcurl's words).
    @Test func urlSessionReportsARefusedCertificateAsServerTrustFailed() async throws {
        let server = try await TLSServer.start(files: ["f.bin": Self.body])
        defer { server.stop() }
        try await withFixture({
            $0.network.transport = .urlSession
            $0.retry.maximumRetries = 0
        }) { fixture in
            let download = await fixture.manager.download(from: server.url("f.bin"), to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .serverTrustFailed, "\(error)")
        }
    }

    @Test func aRuleIsFoundByExactHostThenLongestWildcardThenStar() {
        var trust = TrustSettings()
        trust.rules = [
            TrustRule(host: "*"), TrustRule(host: "*.example.com"), TrustRule(host: "*.cdn.example.com"),
            TrustRule(host: "Example.com"),
        ]
        #expect(trust.rule(for: "example.com")?.host == "example.com")
        #expect(trust.rule(for: "a.cdn.example.com")?.host == "*.cdn.example.com")
        #expect(trust.rule(for: "www.example.com")?.host == "*.example.com")
        #expect(trust.rule(for: "other.org")?.host == "*")
        #expect(PublicKeyPin(sha256Base64: "sha256//" + Data(count: 32).base64EncodedString()) != nil)
        #expect(PublicKeyPin(sha256Base64: "not base64") == nil)
    }
}
