@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `DownloadManager.responseHeads(for:)`: a `HEAD` request over the manager's transport, its
/// redirects followed by the manager's rules, every head returned, nothing downloaded or stored.
@Suite(.timeLimit(.minutes(1)))
struct ResponseHeadsTests {
    // The doc comment's sample.
    func announcedLength(manager: DownloadManager, url: URL) async throws -> String? {
        let heads = try await manager.responseHeads(for: URLRequest(url: url))
        let length = heads.last?.value(forHTTPHeaderField: "Content-Length")
        return length
    }

    @Test func everyHeadOfARedirectedHeadRequestAndNoBody() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/file.bin", Body.pattern(count: 50_000, seed: 4510))
            let hop = fixture.serve("/hop", Body.pattern(count: 0)) { $0.redirect = (303, url.absoluteString) }
            var request = URLRequest(url: hop)
            request.setValue("yes", forHTTPHeaderField: "X-Asked")
            let heads = try await fixture.manager.responseHeads(for: request)
            #expect(heads.map(\.statusCode) == [303, 200])
            #expect(heads.map(\.url) == [hop, url])
            #expect(heads.first?.value(forHTTPHeaderField: "Location") == url.absoluteString)
            #expect(try await announcedLength(manager: fixture.manager, url: url) == "50000")
            let requests = fixture.server.requests("/file.bin") + fixture.server.requests("/hop")
            #expect(requests.allSatisfy { $0.method == "HEAD" && $0.bodyBytesSent == 0 })
            #expect(fixture.server.requests("/file.bin").first?.header("X-Asked") == "yes")
            #expect(await fixture.manager.downloads.isEmpty)
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    /// What `responseHeads(for:)` of `url` fails with; nil if it does not.
    static func error(_ manager: DownloadManager, _ url: URL) async -> DownloadError? {
        do {
            _ = try await manager.responseHeads(for: URLRequest(url: url))
            return nil
        } catch {
            return error
        }
    }

    @Test func anErrorStatusIsAHeadAndARefusedRedirectAnError() async throws {
        try await withFixture(startsManager: false) { fixture in
            let manager = try fixture.makeManager { configuration in
                configuration.redirects.handler = { redirect in
                    redirect.request.url?.path == "/refused" ? .refuse("not there") : .follow
                }
            }
            let missing = fixture.serve("/missing", Body.pattern(count: 10)) {
                $0.faults = [.status(404, headers: [:])]
            }
            #expect(try await manager.responseHeads(for: URLRequest(url: missing)).map(\.statusCode) == [404])
            let hop = fixture.serve("/hop", Body.pattern(count: 0)) {
                $0.redirect = (302, fixture.server.url("/refused").absoluteString)
            }
            #expect(await Self.error(manager, hop)?.kind == .redirectRefused)
            #expect(fixture.server.requests("/refused").isEmpty)
            #expect(await Self.error(manager, URL(string: "ftp://127.0.0.1/f")!)?.kind == .invalidRequest)
            await manager.invalidate()
        }
    }

    /// A `401` goes to the authentication handler, as a download's would: its credentials (Digest
    /// here, made for the `HEAD`) go with the request sent again, and both heads are returned.
    @Test func aChallengeIsAnsweredByTheHandlerAndBothHeadsReturned() async throws {
        try await withFixture(startsManager: false) { fixture in
            let asked = Locked(0)
            let manager = try fixture.makeManager { configuration in
                configuration.authentication.handler = { challenge in
                    asked.withLock { $0 += 1 }
                    return .useCredential(user: "ada", password: "lovelace")
                }
            }
            let url = fixture.serve("/secret.bin", Body.pattern(count: 40_000, seed: 4511)) {
                $0.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
            }
            let heads = try await manager.responseHeads(for: URLRequest(url: url))
            #expect(heads.map(\.statusCode) == [401, 200])
            #expect(heads.last?.value(forHTTPHeaderField: "Content-Length") == "40000")
            #expect(asked.withLock { $0 } == 1)
            let requests = fixture.server.requests("/secret.bin")
            #expect(requests.map(\.method) == ["HEAD", "HEAD"])
            #expect(requests.last?.header("Authorization")?.hasPrefix("Digest ") == true)
            await manager.invalidate()
        }
    }

    /// Wrong credentials are asked for again up to the limit; then the last `401` is the answer.
    @Test func wrongCredentialsEndWithTheLastChallenge() async throws {
        try await withFixture(startsManager: false) { fixture in
            let manager = try fixture.makeManager { configuration in
                configuration.authentication.maximumAttempts = 2
                configuration.authentication.handler = { _ in .useCredential(user: "ada", password: "wrong") }
            }
            let url = fixture.serve("/secret.bin", Body.pattern(count: 40_000, seed: 4512)) {
                $0.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
            }
            #expect(try await manager.responseHeads(for: URLRequest(url: url)).map(\.statusCode) == [401, 401, 401])
            await manager.invalidate()
        }
    }

    @Test func withoutAHandlerTheChallengeIsTheAnswer() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/secret.bin", Body.pattern(count: 40_000, seed: 4513)) {
                $0.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
            }
            let heads = try await fixture.manager.responseHeads(for: URLRequest(url: url))
            #expect(heads.map(\.statusCode) == [401])
        }
    }
}
