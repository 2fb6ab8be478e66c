@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Servers that ask for credentials: the authentication handler answers, or the download fails
/// with the status.
@Suite(.timeLimit(.minutes(2)))
struct AuthenticationTests {
    static let basic = "Basic " + Data("ada:lovelace".utf8).base64EncodedString()

    /// The scheme and the realm end at their first separator, also when a combining mark after
    /// it makes one character of both (the realm of a challenge that breaks the grammar after its
    /// quoted string is none).
    @Test(arguments: [
        ("Basic realm=\"x\"", "Basic", "x"),
        ("Basic,\u{301}Bearer realm=\"x\"\u{301}, charset=\"UTF-8\"", "Basic", nil),
        ("Digest realm=a,\u{301}b", "Digest", "a"),
        (" ,Bearer", "Bearer", nil),
    ])
    func theSchemeAndTheRealmEndAtTheirSeparators(header: String, scheme: String, realm: String?) {
        let challenge = AuthenticationChallenge(
            downloadID: DownloadID(),
            response: ServerResponse(url: nil, statusCode: 401, headers: ["WWW-Authenticate": header]),
            previousFailureCount: 0)
        #expect(challenge.scheme == scheme)
        #expect(challenge.realm == realm)
    }

    @Test func withoutAHandlerA401FailsWithItsStatus() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/private.bin", .pattern(count: 1_000)) { $0.requiredAuthorization = Self.basic }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("private.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .httpStatus)
            #expect(error.statusCode == 401)
            #expect(!error.isResumable)
        }
    }

    @Test func theHandlersCredentialsGoWithEveryLaterRequest() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture({ configuration in
            configuration.network.maximumBytesPerRequest = 100_000
            configuration.authentication.handler = { challenge in
                challenges.withLock { $0.append(challenge) }
                return .useCredential(user: "ada", password: "lovelace")
            }
        }) { fixture in
            let body = Body.pattern(count: 350_000, seed: 730)
            let url = fixture.serve("/private.bin", body) { $0.requiredAuthorization = Self.basic }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("private.bin")))
            try body.expectMatches(try await download.fileURL)

            let challenge = try #require(challenges.withLock { $0 }.first)
            #expect(challenges.withLock { $0.count } == 1)
            #expect(challenge.downloadID == download.id)
            #expect(challenge.response.statusCode == 401)
            #expect(challenge.scheme == "Basic")
            #expect(challenge.realm == "downstream")
            #expect(!challenge.isProxy)
            #expect(challenge.previousFailureCount == 0)
            let requests = fixture.server.requests("/private.bin")
            #expect(
                requests.map { $0.header("Authorization") } == [nil, Self.basic, Self.basic, Self.basic, Self.basic])
            // The 401's body was never written: the file starts at its first byte.
            #expect(requests[1].rangeStart == 0)
        }
    }

    @Test func refusedCredentialsAreAnsweredAFewTimesThenTheDownloadFails() async throws {
        let counts = Locked<[Int]>([])
        try await withFixture({ configuration in
            configuration.authentication.handler = { challenge in
                counts.withLock { $0.append(challenge.previousFailureCount) }
                return .authorization("Bearer expired")
            }
        }) { fixture in
            let url = fixture.serve("/token.bin", .pattern(count: 1_000)) { $0.requiredAuthorization = "Bearer fresh" }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("token.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.statusCode == 401)
            #expect(counts.withLock { $0 } == [0, 1, 2])
            #expect(fixture.server.requests("/token.bin").count == 4)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("token.bin").path))
        }
    }

    @Test func aHandlersAnswerThatWouldSplitTheRequestIsNotSent() async throws {
        try await withFixture({ configuration in
            configuration.authentication.handler = { _ in .authorization("Bearer x\r\n\r\nGET /smuggled HTTP/1.1") }
        }) { fixture in
            let url = fixture.serve("/token.bin", .pattern(count: 1_000)) { $0.requiredAuthorization = "Bearer fresh" }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("token.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(
                error.reason.hasPrefix(
                    "the authentication handler's answer: the value of the header Authorization holds a line break"))
            #expect(fixture.server.requests("/token.bin").count == 1)
            #expect(fixture.server.requests("/smuggled").isEmpty)
        }
    }

    @Test func aHandlerThatGivesUpFailsTheDownloadAndABearerTokenWorks() async throws {
        try await withFixture({ configuration in
            configuration.authentication.handler = { challenge in
                challenge.response.url?.path == "/bearer.bin" ? .authorization("Bearer fresh") : .fail
            }
        }) { fixture in
            let body = Body.pattern(count: 20_000, seed: 731)
            let bearer = fixture.serve("/bearer.bin", body) { $0.requiredAuthorization = "Bearer fresh" }
            let refused = fixture.serve("/refused.bin", body) { $0.requiredAuthorization = "Bearer fresh" }
            try body.expectMatches(
                try await fixture.manager.download(from: bearer, to: .file(fixture.file("bearer.bin"))).fileURL)
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.download(from: refused, to: .file(fixture.file("refused.bin"))).fileURL
            }
            #expect(error.statusCode == 401)
            #expect(fixture.server.requests("/refused.bin").count == 1)
        }
    }
}
