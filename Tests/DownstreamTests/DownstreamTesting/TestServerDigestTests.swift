@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// The test server's Digest checks (``Route/requiredDigest``) refuse what RFC 7616 says to
/// refuse, so that the download tests that pass against it prove something: answers made with
/// Downstream's own Digest code, changed one part at a time, on raw connections.
@Suite(.timeLimit(.minutes(1)))
struct TestServerDigestTests {
    static func challenge(_ response: RawHTTPResponse) throws -> DigestChallenge {
        let field = try #require(response.header("WWW-Authenticate"))
        return try DigestChallenge(try #require(HTTPChallenge.parse(field).first))
    }

    @Test func everyPartOfAnAnswerIsCheckedAndACountIsUsedOnce() throws {
        var route = Route(body: .pattern(count: 100))
        route.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
        route.requiredDigest?.nonceUses = 3
        let server = try ServerProbe.server(serving: route)
        defer { server.shutdown() }
        let first = try ServerProbe.get(server)
        #expect(first.status == 401)
        let terms = try Self.challenge(first)
        #expect(!terms.isStale && terms.hash == .sha256 && terms.hasQualityOfProtection && terms.opaque != nil)

        func status(
            user: String = "ada", password: String = "lovelace", target: String = "/file", uri: String = "/file",
            count: UInt32, _ answered: DigestChallenge? = nil
        ) throws -> Int {
            let value = (answered ?? terms).answer(
                user: user, password: password, method: "GET", uri: uri, count: count, cnonce: "c\(count)")
            return try ServerProbe.get(server, target, headers: ["Authorization": value]).status
        }
        #expect(try status(count: 1) == 200)
        // The same count again is a replay; counts may arrive out of order (concurrent requests).
        #expect(try status(count: 1) == 401)
        #expect(try status(count: 3) == 200)
        // Another target than the request's, another password or user, a nonce it never gave.
        #expect(try status(uri: "/other", count: 4) == 401)
        #expect(try status(target: "/file?x=1", count: 5) == 401)
        #expect(try status(password: "wrong", count: 6) == 401)
        #expect(try status(user: "bob", count: 7) == 401)
        var forged = terms
        forged.nonce = "forged"
        #expect(try status(count: 1, forged) == 401)
        var other = terms
        other.realm = "elsewhere"
        #expect(try status(count: 8, other) == 401)
        #expect(try status(count: 2) == 200)

        // The nonce answered three requests: a right answer now gets a new one, said stale.
        let refused = try ServerProbe.get(
            server,
            headers: [
                "Authorization": terms.answer(
                    user: "ada", password: "lovelace", method: "GET", uri: "/file", count: 9, cnonce: "c")
            ])
        #expect(refused.status == 401)
        let renewed = try Self.challenge(refused)
        #expect(renewed.isStale && renewed.nonce != terms.nonce)
        #expect(try status(count: 1, renewed) == 200)
        #expect(server.requests("/file").map(\.status).filter { $0 == 200 }.count == 4)
    }
}
