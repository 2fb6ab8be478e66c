@testable import Downstream
import Foundation
import Testing

/// libcurl's CA bundles of the trust rules are libcurl's alone: a manager whose requests go over
/// URLSession (on Apple platforms always) writes none, and is not refused for a rule libcurl
/// could not use. Needs no TLS: managers are made, nothing is downloaded.
@Suite(.timeLimit(.minutes(1)))
struct TrustBundleTests {
    /// A rule with an authority given as DER bytes (a SEQUENCE: all that is checked before the
    /// bundle is written).
    static let rule = TrustRule(
        host: "example.com", additionalAuthorities: [.data(Data([0x30, 0x03, 0x02, 0x01, 0x00]))])
    /// A rule with an authority that cannot be read.
    static let unreadable = TrustRule(
        host: "example.com",
        additionalAuthorities: [.file(URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/ca.pem"))])

    static func trust(_ rule: TrustRule) -> TrustSettings {
        var trust = TrustSettings()
        trust.rules = [rule]
        return trust
    }

    @Test func aManagerOverURLSessionWritesNoBundle() async throws {
        for rule in [Self.rule, Self.unreadable] {
            try await withFixture({
                $0.trust = Self.trust(rule)
                $0.network.transport = .urlSession
            }) { fixture in
                #expect(fixture.manager.transportName == "URLSession")
                #expect(
                    !FileManager.default.fileExists(atPath: fixture.storeDirectory.appendingPathComponent("trust").path)
                )
            }
        }
    }

    @Test(.enabled(if: TransportUnderTest.isCurl, "libcurl is the manager's transport on Linux only"))
    func aManagerOverLibcurlWritesTheBundleOfEachRuleWithAuthorities() async throws {
        try await withFixture({ $0.trust = Self.trust(Self.rule) }) { fixture in
            #expect(fixture.manager.transportName.hasPrefix("libcurl"))
            #expect(fixture.listing(fixture.storeDirectory.appendingPathComponent("trust")).count == 1)
        }
        var configuration = DownloadManager.Configuration(identifier: "test-\(UUID().uuidString)")
        configuration.storage.directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("downstream-tests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: configuration.storage.directory!) }
        configuration.trust = Self.trust(Self.unreadable)
        #expect {
            _ = try DownloadManager(configuration: configuration)
        } throws: { error in
            (error as? DownloadError)?.kind == .managerUnavailable
        }
    }
}
