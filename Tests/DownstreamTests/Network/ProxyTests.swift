@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// `network.proxy`: requests through an HTTP proxy (absolute form for HTTP, a `CONNECT` tunnel
/// for HTTPS), with credentials, and hosts reached directly; the proxy is DownstreamTesting's
/// ``TestProxy``. libcurl honours it; URLSession on Linux cannot, and refuses.
@Suite(.timeLimit(.minutes(1)))
struct ProxyTests {
    static var managersUseLibcurl: Bool {
        TransportUnderTest.isLibcurlAvailable && DownloadManager.Configuration.automaticMeansLibcurl
    }

    static let body = Body.pattern(count: 300_000, seed: 2401)

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func anHTTPDownloadGoesThroughTheProxy() async throws {
        let proxy = try TestProxy()
        defer { proxy.shutdown() }
        try await withFixture({ $0.network.proxy = Proxy(url: proxy.url) }) { fixture in
            let url = fixture.serve("/p/a.bin", Self.body)
            try Self.body.expectMatches(
                try await fixture.manager.download(from: url, to: .directory(fixture.directory)).fileURL)
            #expect(proxy.requests.map(\.target).contains(url.absoluteString), "\(proxy.requests)")
            #expect(fixture.server.requests("/p/a.bin").count >= 1)
        }
    }

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func credentialsAreSentAndAMissingOneIsA407() async throws {
        let authorization = "Basic " + Data("proxy-user:proxy pw".utf8).base64EncodedString()
        let proxy = try TestProxy(requiredAuthorization: authorization)
        defer { proxy.shutdown() }
        try await withFixture({
            $0.network.proxy = Proxy(
                .http, host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: "proxy pw")
        }) { fixture in
            let url = fixture.serve("/p/b.bin", Self.body)
            try Self.body.expectMatches(
                try await fixture.manager.download(from: url, to: .directory(fixture.directory)).fileURL)
            #expect(proxy.requests.last?.proxyAuthorization == authorization)
        }
        try await withFixture({
            $0.network.proxy = Proxy(url: proxy.url)
            $0.retry.maximumRetries = 0
        }) { fixture in
            let url = fixture.serve("/p/c.bin", Self.body)
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .httpStatus && error.statusCode == 407, "\(error)")
            #expect(fixture.server.requests("/p/c.bin").isEmpty)
        }
    }

    @Test(.enabled(if: managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func aBypassedHostIsReachedDirectly() async throws {
        let proxy = try TestProxy()
        defer { proxy.shutdown() }
        try await withFixture({ $0.network.proxy = Proxy(url: proxy.url, bypassedHosts: ["127.0.0.1"]) }) { fixture in
            let url = fixture.serve("/p/d.bin", Self.body)
            try Self.body.expectMatches(
                try await fixture.manager.download(from: url, to: .directory(fixture.directory)).fileURL)
            #expect(proxy.requests.isEmpty)
        }
    }

    @Test(
        .enabled(if: managersUseLibcurl && TLSServer.isAvailable, "libcurl on Linux, and the openssl command"))
    func anHTTPSDownloadTunnelsThroughCONNECTWithItsTrustRule() async throws {
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        let server = try await TLSServer.start(files: ["t.bin": data])
        defer { server.stop() }
        let proxy = try TestProxy()
        defer { proxy.shutdown() }
        try await withFixture({
            $0.network.proxy = Proxy(url: proxy.url)
            $0.trust.rules = [TrustRule(host: "127.0.0.1", additionalAuthorities: [.file(server.authority)])]
        }) { fixture in
            let file = try await fixture.manager.download(from: server.url("t.bin"), to: .directory(fixture.directory))
                .fileURL
            #expect(try Data(contentsOf: file) == data)
            #expect(proxy.requests.map(\.method) == ["CONNECT"])
            #expect(proxy.requests.first?.target == "127.0.0.1:\(server.port)")
        }
    }

    /// A proxy's `407` to the CONNECT of an HTTPS download reaches the authentication handler as
    /// a proxy challenge, with the proxy's scheme; its credentials go to the
    /// CONNECT (libcurl keeps a CONNECT's answer to itself, and fails the transfer).
    @Test(
        .enabled(if: managersUseLibcurl && TLSServer.isAvailable, "libcurl on Linux, and the openssl command"))
    func aProxyRefusingTheTunnelIsAskedThroughTheAuthenticationHandler() async throws {
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let server = try await TLSServer.start(files: ["t.bin": data])
        defer { server.stop() }
        let authorization = "Basic " + Data("tunnel:pw".utf8).base64EncodedString()
        let proxy = try TestProxy(requiredAuthorization: authorization)
        defer { proxy.shutdown() }
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture({
            $0.network.proxy = Proxy(url: proxy.url)
            $0.trust.rules = [TrustRule(host: "127.0.0.1", additionalAuthorities: [.file(server.authority)])]
            $0.authentication.handler = { challenge in
                challenges.withLock { $0.append(challenge) }
                return challenge.isProxy ? .useCredential(user: "tunnel", password: "pw") : .fail
            }
        }) { fixture in
            let file = try await fixture.manager.download(from: server.url("t.bin"), to: .directory(fixture.directory))
                .fileURL
            #expect(try Data(contentsOf: file) == data)
        }
        let asked = challenges.withLock { $0 }
        #expect(asked.count == 1)
        #expect(asked.first?.isProxy == true)
        #expect(asked.first?.scheme?.lowercased() == "basic", "\(String(describing: asked.first?.header))")
        // libcurl keeps the CONNECT's fields to itself: the scheme is known, not the realm.
        #expect(proxy.requests.map(\.method) == ["CONNECT", "CONNECT"])
        #expect(proxy.requests.map(\.proxyAuthorization) == [nil, authorization])
    }

    @Test func urlSessionOnLinuxRefusesAProxyItWouldIgnore() async throws {
        #if canImport(Darwin)
            return
        #else
            try await withFixture({
                $0.network.transport = .urlSession
                $0.network.proxy = Proxy(url: URL(string: "http://127.0.0.1:9")!)
            }) { fixture in
                let download = await fixture.manager.download(
                    from: fixture.server.url("/x"), to: .directory(fixture.directory))
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == .invalidRequest)
                #expect(error.reason.contains("network.proxy"), "\(error.reason)")
            }
        #endif
    }

    @Test func aProxyURLGivesItsKindPortAndCredentials() throws {
        let socks = try #require(Proxy(url: URL(string: "socks5://10.0.0.1")!))
        #expect(socks.kind == .socks5 && socks.port == 1080 && socks.curlURL == "socks5h://10.0.0.1:1080")
        let https = try #require(
            Proxy(url: URL(string: "https://u%40x:p%3Aw@proxy.example:8443")!, bypassedHosts: ["*.corp"]))
        #expect(https.user == "u@x" && https.password == "p:w" && https.port == 8443)
        #expect(https.curlNoProxy == ".corp")
        #expect(https.description == "https://proxy.example:8443")
        #expect(Proxy(url: URL(string: "ftp://proxy")!) == nil)
    }
}
