@_spi(Testing) @testable import Downstream
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
