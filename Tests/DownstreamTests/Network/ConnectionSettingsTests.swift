@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// `network.connectionTimeout` and `network.addressFamily` (curl's and wget's
/// `--connect-timeout`, `-4`, `-6`): libcurl honours them; a transport that cannot fails the
/// request, naming the setting, instead of ignoring it.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionSettingsTests {
    static var managersUseLibcurl: Bool {
        TransportUnderTest.isLibcurlAvailable && DownloadManager.Configuration.automaticMeansLibcurl
    }

    @Test(.enabled(if: managersUseLibcurl, "the manager's transport is libcurl only on Linux, unless told otherwise"))
    func libcurlConnectsOverTheAddressFamilyAsked() async throws {
        let body = Body.pattern(count: 10_000, seed: 2313)
        try await withFixture({
            $0.network.addressFamily = .ipv4
            $0.network.connectionTimeout = .seconds(5)
        }) { fixture in
            #expect(fixture.manager.transportName.hasPrefix("libcurl"))
            let url = fixture.serve("/v4.bin", body)
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .directory(fixture.directory)).fileURL)
        }
        // The test server listens on 127.0.0.1: over IPv6 only, there is nothing to connect to.
        try await withFixture({
            $0.network.addressFamily = .ipv6
            $0.retry.maximumRetries = 0
        }) { fixture in
            let url = fixture.serve("/v6.bin", body)
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .network)
            #expect(fixture.server.requests("/v6.bin").isEmpty)
        }
    }

    @Test func urlSessionFailsARequestThatNeedsWhatItCannotDo() async throws {
        try await withFixture({
            $0.network.transport = .urlSession
            $0.network.connectionTimeout = .seconds(5)
            $0.network.addressFamily = .ipv6
        }) { fixture in
            let url = fixture.serve("/s.bin", Body.pattern(count: 1_000, seed: 2314))
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(error.reason.contains("network.connectionTimeout and network.addressFamily"))
            #expect(error.reason.contains("URLSession"))
            #expect(fixture.server.requests("/s.bin").isEmpty)
        }
    }
}

/// What each engine applies of the trust rules, and the one check that refuses a request whose
/// rule an engine it may go through cannot honour.
@Suite(.timeLimit(.minutes(1)))
struct TrustSettingsSupportTests {
    static let pin = PublicKeyPin(sha256Base64: Data(repeating: 5, count: 32).base64EncodedString())!

    /// libcurl's settings are found by setting each option at load time; with OpenSSL, every
    /// one but keychain identities (an Apple thing) is taken.
    @Test(.enabled(if: TransportUnderTest.isLibcurlAvailable, "libcurl does not load here"))
    func libcurlWithOpenSSLTakesEveryTrustSettingButKeychainIdentities() throws {
        try #require(
            CurlLibrary.versionText.contains("OpenSSL"),
            "the probe's expectations are OpenSSL's: \(CurlLibrary.versionText)")
        #expect(
            CurlLibrary.connectionSettings == Set(ConnectionSetting.allCases).subtracting([.keychainClientIdentity]))
    }

    @Test func eachEngineARequestMayTakeMustHonourTheRuleOfItsHost() {
        var trust = TrustSettings()
        trust.rules = [
            TrustRule(host: "pinned.example", publicKeyPins: [Self.pin]),
            TrustRule(host: "*.corp.example", clientIdentity: .pkcs12(data: Data([0x30]), password: "p")),
            TrustRule(host: "asked.example", clientIdentity: .provided { _ in .pkcs12(data: Data(), password: "") }),
            .acceptingAnyCertificate(forHost: "dev.example"),
        ]
        let all = ConnectionEngine(name: "everything", settings: Set(ConnectionSetting.allCases))
        let noPins = ConnectionEngine(
            name: "pinless", settings: Set(ConnectionSetting.allCases).subtracting([.publicKeyPins]))
        let background = ConnectionEngine(
            name: "background session", settings: [.trustAuthorities, .publicKeyPins, .acceptingAnyCertificate])
        let network = DownloadManager.Configuration.Network()
        func problem(_ engines: [ConnectionEngine], _ host: String) -> String? {
            network.unappliedSettings(on: engines, host: host, trust: trust)
        }
        #expect(problem([all, background], "pinned.example") == nil)
        #expect(problem([all], "other.example") == nil)
        #expect(
            problem([noPins], "pinned.example")?.hasPrefix(
                "the pins of the trust rule for pinned.example (1 pin) cannot be honoured by the pinless transport")
                == true)
        // Identity bytes need both a PKCS#12 identity and bytes; a background session shows none.
        #expect(problem([all, background], "a.corp.example")?.contains("background session") == true)
        #expect(
            problem([all, background], "a.corp.example")?.hasPrefix(
                "the client certificate of the trust rule for *.corp.example (a client certificate) cannot be honoured"
                    + " by the background session transport") == true)
        // A provided identity needs an engine that asks for one; what it gives is checked then.
        #expect(problem([all], "asked.example") == nil)
        #expect(problem([all, background], "asked.example")?.contains("background session") == true)
        #expect(problem([noPins], "dev.example") == nil)
        #expect(
            problem([ConnectionEngine(name: "strict", settings: [])], "dev.example")?.hasPrefix(
                "accepting any certificate of dev.example") == true)
    }

    /// A background manager's downloads start as tasks of the system's session: on Linux, where
    /// it is an ordinary URLSession, it has no trust hooks, so a rule fails the request at once,
    /// though libcurl would honour it.
    @Test func aBackgroundManagerRefusesARuleItsSystemSessionCannotHonour() async throws {
        try await withFixture({
            var background = DownloadManager.Configuration.Background(sessionIdentifier: "trust-\(UUID().uuidString)")
            background.onUnsupportedPlatform = .useForegroundSession
            $0.background = background
            $0.trust.rules = [TrustRule(host: "127.0.0.1", publicKeyPins: [Self.pin])]
        }) { fixture in
            #if canImport(Darwin)
                return
            #else
                let download = await fixture.manager.download(
                    from: fixture.server.url("/x"), to: .directory(fixture.directory))
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == .invalidRequest)
                // Over URLSession on Linux, the ranged engine refuses first.
                let refusing =
                    TransportUnderTest.isCurl ? "the background session transport" : "the URLSession transport"
                #expect(error.reason.contains(refusing), "\(error.reason)")
                #expect(fixture.server.requests("/x").isEmpty)
            #endif
        }
    }
}
