@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Servers and CDNs treat a client without a `User-Agent` as a bot: every request says
/// `Downstream/<version>` unless the app says otherwise, for the manager or for one request.
@Suite(.timeLimit(.minutes(1)))
struct UserAgentTests {
    static let body = Body.pattern(count: 20_000, seed: 2308)

    /// Downloads `body` at `path` with `request` changed by `configure`; returns the
    /// `User-Agent` the server saw.
    static func userAgent(
        _ fixture: Fixture, path: String, _ configure: (inout DownloadRequest) -> Void = { _ in }
    ) async throws -> String? {
        let url = fixture.serve(path, body)
        var request = DownloadRequest(url: url, to: .directory(fixture.directory))
        configure(&request)
        _ = try await fixture.manager.download(request).fileURL
        return try #require(fixture.server.requests(path).first).header("User-Agent")
    }

    @Test func everyRequestSaysDownstreamByDefault() async throws {
        try await withFixture { fixture in
            let sent = try await Self.userAgent(fixture, path: "/default.bin")
            #expect(sent == "Downstream/\(downstreamVersion)")
            #expect(DownloadManager.Configuration.Network.defaultUserAgent == "Downstream/\(downstreamVersion)")
        }
    }

    @Test func theManagersUserAgentReplacesIt() async throws {
        try await withFixture({ $0.network.userAgent = "Podcasts/3.1" }) { fixture in
            let sent = try await Self.userAgent(fixture, path: "/manager.bin")
            #expect(sent == "Podcasts/3.1")
        }
    }

    @Test func anAdditionalHeaderOrTheRequestsOwnWins() async throws {
        try await withFixture({ $0.network.additionalHeaders = ["user-agent": "Additional/1"] }) { fixture in
            let additional = try await Self.userAgent(fixture, path: "/additional.bin")
            #expect(additional == "Additional/1")
            let own = try await Self.userAgent(fixture, path: "/own.bin") {
                $0.urlRequest.setValue("Own/2", forHTTPHeaderField: "User-Agent")
            }
            #expect(own == "Own/2")
        }
    }
}
