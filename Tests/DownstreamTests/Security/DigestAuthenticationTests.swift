@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Servers (and proxies) that ask for HTTP Digest (RFC 7616): a user name and password from the
/// authentication handler go as Digest, answered for each request (each range, each segment's
/// connection, each redirect), never as Basic to a server that did not offer it; a challenge no
/// password can answer fails the download without sending it. DownstreamTesting's server checks
/// every answer, with its own implementation.
@Suite(.timeLimit(.minutes(2)))
struct DigestAuthenticationTests {
    static func digest(_ configure: (inout DigestAuthentication) -> Void = { _ in }) -> DigestAuthentication {
        var digest = DigestAuthentication(user: "ada", password: "lovelace")
        configure(&digest)
        return digest
    }

    /// A configuration whose handler answers with ada's password, recording each challenge.
    static func answering(
        _ challenges: Locked<[AuthenticationChallenge]>,
        _ configure: @escaping (inout DownloadManager.Configuration) -> Void = { _ in }
    ) -> (inout DownloadManager.Configuration) -> Void {
        { configuration in
            configuration.authentication.handler = { challenge in
                challenges.withLock { $0.append(challenge) }
                return .useCredential(user: "ada", password: "lovelace")
            }
            configure(&configuration)
        }
    }

    /// The fields of each request's `Authorization` Digest answer (nil for a request without one).
    static func answers(_ requests: [RecordedRequest], header: String = "Authorization") -> [[String: String]?] {
        requests.map { request in request.header(header).map(HTTPDigestTests.fields) }
    }

    /// Expects that no request carried the password: no Basic, no header with it in.
    static func expectPasswordNeverSent(
        _ values: [String?], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let basic = Data("ada:lovelace".utf8).base64EncodedString()
        for value in values.compactMap({ $0 }) {
            #expect(!value.lowercased().hasPrefix("basic"), "\(value)", sourceLocation: sourceLocation)
            #expect(!value.contains("lovelace") && !value.contains(basic), "\(value)", sourceLocation: sourceLocation)
        }
    }

    @Test func aDigestOnlyServerGetsDigestAndNeverTheBasicPassword() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(Self.answering(challenges)) { fixture in
            let body = Body.pattern(count: 50_000, seed: 7616)
            let url = fixture.serve("/digest.bin", body) { $0.requiredDigest = Self.digest() }
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("digest.bin"))).fileURL)

            let challenge = try #require(challenges.withLock { $0 }.first)
            #expect(challenges.withLock { $0.count } == 1)
            #expect(challenge.schemes == ["Digest"])
            #expect(challenge.credentialScheme == "Digest")
            #expect(challenge.realm == "downstream")
            let requests = fixture.server.requests("/digest.bin")
            #expect(requests.map(\.status) == [401, 206])
            let answer = try #require(Self.answers(requests)[1])
            #expect(answer["username"] == "ada" && answer["algorithm"] == "SHA-256" && answer["qop"] == "auth")
            #expect(answer["uri"] == "/digest.bin" && answer["nc"] == "00000001")
            Self.expectPasswordNeverSent(requests.map { $0.header("Authorization") })
        }
    }

    /// What a server offers, and the Digest algorithm a password should answer with.
    struct Offer: Sendable, CustomTestStringConvertible {
        var algorithms: [String]
        var others: [String] = []
        var oneField = false
        /// The answer's `algorithm` (nil: none, for a challenge that names none).
        var expected: String?

        var testDescription: String {
            "\(algorithms) + \(others)\(oneField ? " in one field" : "") → \(expected ?? "no algorithm")"
        }
    }

    static let basic = "Basic realm=\"downstream\""
    static let offers: [Offer] = [
        Offer(algorithms: ["MD5", "SHA-256"], others: [basic], expected: "SHA-256"),
        Offer(algorithms: ["MD5", "SHA-256"], others: [basic], oneField: true, expected: "SHA-256"),
        Offer(algorithms: ["SHA-512-256", "MD5"], others: [basic], expected: "MD5"),
        Offer(algorithms: ["MD5-sess", "SHA-256-sess"], oneField: true, expected: "SHA-256-sess"),
        Offer(algorithms: [""], others: [basic], expected: nil),
    ]

    /// Which challenge a password answers when a server offers several, in one field or in several.
    @Test(arguments: offers)
    func theStrongestOfferedDigestIsAnswered(offer: Offer) async throws {
        let (algorithms, others, oneField, expected) = (offer.algorithms, offer.others, offer.oneField, offer.expected)
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(Self.answering(challenges) { $0.network.maximumBytesPerRequest = 40_000 }) { fixture in
            let body = Body.pattern(count: 100_000, seed: 7617)
            let url = fixture.serve("/offers.bin", body) {
                $0.requiredDigest = Self.digest {
                    $0.algorithms = algorithms
                    $0.otherChallenges = others
                    $0.challengesInOneField = oneField
                }
            }
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("offers.bin"))).fileURL)
            let requests = fixture.server.requests("/offers.bin")
            #expect(requests.map(\.status) == [401, 206, 206, 206])
            let answers = Self.answers(requests).dropFirst().compactMap { $0 }
            #expect(answers.count == 3)
            #expect(answers.allSatisfy { $0["algorithm"] == expected }, "\(answers)")
            if expected?.hasSuffix("-sess") == true {
                // One session, one cnonce; a count each.
                #expect(Set(answers.map { $0["cnonce"] }).count == 1)
            }
            #expect(answers.map { $0["nc"] } == ["00000001", "00000002", "00000003"])
            #expect(challenges.withLock { $0.count } == 1)
            Self.expectPasswordNeverSent(requests.map { $0.header("Authorization") })
        }
    }

    /// Servers that ask differently: each answer is checked by the server.
    struct Variant: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var user = "ada"
        var configure: @Sendable (inout DigestAuthentication) -> Void
        /// What the answers must show.
        var check: @Sendable ([String: String]) -> Bool
    }

    static let variants: [Variant] = [
        Variant(testDescription: "no qop (RFC 2069)", configure: { $0.qop = [] }) {
            $0["nc"] == nil && $0["cnonce"] == nil && $0["qop"] == nil
        },
        Variant(testDescription: "userhash", configure: { $0.userhash = true }) {
            $0["userhash"] == "true" && $0["username"]?.count == 64
        },
        Variant(testDescription: "auth-int or auth", configure: { $0.qop = ["auth-int", "auth"] }) {
            $0["qop"] == "auth"
        },
        Variant(testDescription: "a name that is not ASCII", user: "Jäsøn Doe", configure: { _ in }) {
            $0["username*"] == "UTF-8''J%C3%A4s%C3%B8n%20Doe"
        },
        Variant(testDescription: "MD5-sess", configure: { $0.algorithms = ["MD5-sess"] }) {
            $0["algorithm"] == "MD5-sess"
        },
    ]

    @Test(arguments: variants)
    func aServerThatAsksDifferentlyIsAnswered(variant: Variant) async throws {
        try await withFixture({
            $0.network.maximumBytesPerRequest = 40_000
            $0.authentication.handler = { _ in .useCredential(user: variant.user, password: "lovelace") }
        }) { fixture in
            let body = Body.pattern(count: 100_000, seed: 7624)
            let url = fixture.serve("/variant.bin", body) {
                var digest = DigestAuthentication(user: variant.user, password: "lovelace")
                variant.configure(&digest)
                $0.requiredDigest = digest
            }
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("variant.bin"))).fileURL)
            let requests = fixture.server.requests("/variant.bin")
            #expect(requests.map(\.status) == [401, 206, 206, 206])
            let answers = Self.answers(requests).dropFirst().compactMap { $0 }
            #expect(answers.count == 3 && answers.allSatisfy(variant.check), "\(answers)")
        }
    }

    @Test func everyRangeHasItsOwnAnswerWithARisingCountAndAFreshCnonce() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(Self.answering(challenges) { $0.network.maximumBytesPerRequest = 100_000 }) { fixture in
            let body = Body.pattern(count: 350_000, seed: 7618)
            let url = fixture.serve("/ranges.bin", body) { $0.requiredDigest = Self.digest() }
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("ranges.bin"))).fileURL)
            let requests = fixture.server.requests("/ranges.bin")
            #expect(requests.map(\.status) == [401, 206, 206, 206, 206])
            let answers = Self.answers(requests).dropFirst().compactMap { $0 }
            #expect(answers.map { $0["nc"] } == ["00000001", "00000002", "00000003", "00000004"])
            #expect(Set(answers.compactMap { $0["cnonce"] }).count == 4)
            #expect(Set(answers.compactMap { $0["nonce"] }).count == 1)
            #expect(answers.allSatisfy { $0["uri"] == "/ranges.bin" })
            #expect(challenges.withLock { $0.count } == 1)
        }
    }

    @Test func everySegmentsConnectionHasItsOwnAnswer() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(
            Self.answering(challenges, SegmentedDownloadTests.segmented(4, minimum: 256 * 1024))
        ) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 7619)
            // The segments' requests wait until all four arrived: they run at once.
            let url = fixture.serve("/segments.bin", body) {
                $0.requiredDigest = Self.digest()
                $0.faults = [.none, .none] + Array(repeating: .holdAfter(1000), count: 4)
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("segments.bin")))
            #expect(await fixture.server.waitForRequests(6, path: "/segments.bin"))
            fixture.server.release("/segments.bin")
            try body.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/segments.bin")
            #expect(requests.first?.status == 401)
            #expect(requests.dropFirst().allSatisfy { $0.status == 206 }, "\(requests.map(\.status))")
            #expect(Set(requests.dropFirst().map(\.connection)).count >= 4)
            let answers = Self.answers(requests).dropFirst()
            #expect(answers.allSatisfy { $0 != nil })
            let counts = answers.compactMap { $0?["nc"] }
            #expect(Set(counts).count == counts.count, "\(counts)")
            #expect(Set(answers.compactMap { $0?["cnonce"] }).count == counts.count)
            #expect(answers.allSatisfy { $0?["uri"] == "/segments.bin" })
            #expect(challenges.withLock { $0.count } == 1)
        }
    }

    @Test func aStaleNonceIsRenewedWithoutAskingTheHandlerAgain() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(Self.answering(challenges) { $0.network.maximumBytesPerRequest = 100_000 }) { fixture in
            let body = Body.pattern(count: 350_000, seed: 7620)
            let url = fixture.serve("/stale.bin", body) { $0.requiredDigest = Self.digest { $0.nonceUses = 2 } }
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("stale.bin"))).fileURL)
            let requests = fixture.server.requests("/stale.bin")
            #expect(requests.map(\.status) == [401, 206, 206, 401, 206, 206])
            let answers = Self.answers(requests)
            // The third range's answer was right but its nonce too old; it is asked for again
            // with the server's new nonce, whose count starts again.
            #expect(answers.map { $0?["nc"] } == [nil, "00000001", "00000002", "00000003", "00000001", "00000002"])
            #expect(answers[3]?["nonce"] == answers[1]?["nonce"])
            #expect(answers[4]?["nonce"] != answers[3]?["nonce"])
            #expect(requests[3].rangeStart == requests[4].rangeStart)
            #expect(challenges.withLock { $0.count } == 1)
        }
    }

    @Test func aStaleNonceOfASegmentEndsTheAttemptAndTheDownloadGoesOn() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(
            Self.answering(challenges, SegmentedDownloadTests.segmented(2, minimum: 256 * 1024))
        ) { fixture in
            // The first segment, then two of 256 KiB at once (too small to take over halves): the
            // second of them finds the nonce stale.
            let body = Body.pattern(count: 3 * 256 * 1024, seed: 7621)
            let url = fixture.serve("/stale-segments.bin", body) {
                $0.requiredDigest = Self.digest { $0.nonceUses = 2 }
            }
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("stale-segments.bin"))).fileURL)
            let requests = fixture.server.requests("/stale-segments.bin")
            #expect(requests.filter { $0.status == 401 }.count == 2, "\(requests.map(\.status))")
            #expect(challenges.withLock { $0.count } == 1)
            Self.expectPasswordNeverSent(requests.map { $0.header("Authorization") })
        }
    }

    static let unanswerable: [(header: String, schemes: [String])] = [
        ("NTLM, Negotiate", ["NTLM", "Negotiate"]),
        ("Negotiate", ["Negotiate"]),
        (#"Bearer realm="api", error="invalid_token""#, ["Bearer"]),
        (#"Digest realm="r", nonce="n", algorithm=SHA-512-256, qop="auth""#, ["Digest"]),
        (#"Digest realm="r", nonce="n", qop="auth-int""#, ["Digest"]),
    ]

    @Test(arguments: unanswerable)
    func aChallengeNoPasswordCanAnswerFailsWithoutSendingIt(header: String, schemes: [String]) async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(Self.answering(challenges)) { fixture in
            let url = fixture.serve("/ntlm.bin", .pattern(count: 1_000)) {
                $0.faults = [.status(401, headers: ["WWW-Authenticate": header])]
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("ntlm.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unsupportedAuthentication)
            #expect(error.statusCode == 401)
            for scheme in schemes {
                #expect(error.reason.contains(scheme), "\(error.reason)")
            }
            #expect(error.description.contains("The password was not sent"), "\(error.description)")
            let challenge = try #require(challenges.withLock { $0 }.first)
            #expect(challenge.schemes == schemes && challenge.credentialScheme == nil)
            // The one request went without credentials, and none followed.
            let requests = fixture.server.requests("/ntlm.bin")
            #expect(requests.count == 1)
            #expect(requests.allSatisfy { $0.header("Authorization") == nil })
        }
    }

    @Test func aRedirectsRequestGetsAnAnswerForItsOwnTarget() async throws {
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture(Self.answering(challenges)) { fixture in
            let body = Body.pattern(count: 30_000, seed: 7622)
            fixture.server.setRoute("/old.bin", .redirect(302, to: "/new.bin?v=2"))
            fixture.serve("/new.bin", body) { $0.requiredDigest = Self.digest() }
            let download = await fixture.manager.download(
                from: fixture.server.url("/old.bin"), to: .file(fixture.file("new.bin")))
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/new.bin")
            #expect(requests.map(\.status) == [401, 206])
            #expect(Self.answers(requests)[1]?["uri"] == "/new.bin?v=2")
            // The request to the old URL carried the answer for its own target.
            #expect(Self.answers(fixture.server.requests("/old.bin")).map { $0?["uri"] } == [nil, "/old.bin"])
            #expect(challenges.withLock { $0.count } == 1)
        }
    }

    @Test func aWrongPasswordIsRefusedAndTheHandlerAskedAgain() async throws {
        let counts = Locked<[Int]>([])
        try await withFixture({
            $0.authentication.handler = { challenge in
                counts.withLock { $0.append(challenge.previousFailureCount) }
                return challenge.previousFailureCount < 2 ? .useCredential(user: "ada", password: "wrong") : .fail
            }
        }) { fixture in
            let url = fixture.serve("/wrong.bin", .pattern(count: 1_000)) { $0.requiredDigest = Self.digest() }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("wrong.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .httpStatus && error.statusCode == 401)
            #expect(counts.withLock { $0 } == [0, 1, 2])
            #expect(fixture.server.requests("/wrong.bin").map(\.status) == [401, 401, 401])
        }
    }

    // MARK: - Proxies

    @Test(.enabled(if: ProxyTests.managersUseLibcurl, "libcurl is the manager's transport on Linux only"))
    func aProxysDigestIsAnsweredForEachRequestThroughIt() async throws {
        let proxy = try TestProxy(
            requiredDigest: DigestAuthentication(user: "proxy-user", password: "proxy pw"))
        defer { proxy.shutdown() }
        let challenges = Locked<[AuthenticationChallenge]>([])
        try await withFixture({
            $0.network.proxy = Proxy(url: proxy.url)
            $0.network.maximumBytesPerRequest = 100_000
            $0.authentication.handler = { challenge in
                challenges.withLock { $0.append(challenge) }
                return challenge.isProxy ? .useCredential(user: "proxy-user", password: "proxy pw") : .fail
            }
        }) { fixture in
            let body = Body.pattern(count: 250_000, seed: 7623)
            let url = fixture.serve("/p/digest.bin", body)
            try body.expectMatches(
                try await fixture.manager.download(from: url, to: .file(fixture.file("digest.bin"))).fileURL)
            let asked = challenges.withLock { $0 }
            #expect(asked.count == 1 && asked.first?.isProxy == true && asked.first?.credentialScheme == "Digest")
            // The proxy checked the first answer of each connection, and relays what follows on it
            // as it comes, to the server, which sees every request's own answer.
            let checked = proxy.requests.map(\.proxyAuthorization)
            #expect(checked.first == .some(nil) && checked.count >= 2, "\(checked)")
            let values = fixture.server.requests("/p/digest.bin").map { $0.header("Proxy-Authorization") }
            let answers = values.map { $0.map(HTTPDigestTests.fields) }
            #expect(answers.map { $0?["nc"] } == ["00000001", "00000002", "00000003"])
            #expect(answers.allSatisfy { $0?["uri"] == "/p/digest.bin" && $0?["username"] == "proxy-user" })
            #expect(Set(answers.map { $0?["cnonce"] }).count == 3)
            for value in (checked + values).compactMap({ $0 }) {
                #expect(value.hasPrefix("Digest ") && !value.contains("proxy pw"))
            }
        }
    }

    /// libcurl keeps the parameters of a proxy's answer to a `CONNECT`: its Digest cannot be
    /// answered, and the password is not sent in Basic instead.
    @Test(
        .enabled(
            if: ProxyTests.managersUseLibcurl && TLSServer.isAvailable, "libcurl on Linux, and the openssl command"))
    func aProxysDigestForATunnelFailsWithoutSendingThePassword() async throws {
        let data = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let server = try await TLSServer.start(files: ["t.bin": data])
        defer { server.stop() }
        let proxy = try TestProxy(requiredDigest: DigestAuthentication(user: "tunnel", password: "pw"))
        defer { proxy.shutdown() }
        try await withFixture({
            $0.network.proxy = Proxy(url: proxy.url)
            $0.trust.rules = [TrustRule(host: "127.0.0.1", additionalAuthorities: [.file(server.authority)])]
            $0.authentication.handler = { _ in .useCredential(user: "tunnel", password: "pw") }
        }) { fixture in
            let download = await fixture.manager.download(from: server.url("t.bin"), to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unsupportedAuthentication && error.statusCode == 407, "\(error)")
            #expect(error.reason.contains("CONNECT"), "\(error.reason)")
            #expect(proxy.requests.map(\.method) == ["CONNECT"])
            #expect(proxy.requests.map(\.proxyAuthorization) == [nil])
        }
    }
}
