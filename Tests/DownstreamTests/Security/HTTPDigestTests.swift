@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP Digest (RFC 7616) without a server: the challenges a header holds, the scheme a password
/// is sent in, and the answers made for each request.
@Suite struct HTTPDigestTests {
    /// The two challenges of RFC 7616, section 3.9.1, in two fields, as the transports join them.
    static let rfcChallenges = [
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
    ].joined(separator: ", ")

    static func challenge(_ header: String?, status: Int = 401, url: String = "http://example.org/dir/index.html")
        -> AuthenticationChallenge
    {
        let name = status == 407 ? "Proxy-Authenticate" : "WWW-Authenticate"
        return AuthenticationChallenge(
            downloadID: DownloadID(),
            response: ServerResponse(
                url: URL(string: url)!, statusCode: status, headers: header.map { [name: $0] } ?? [:]),
            previousFailureCount: 0)
    }

    /// The fields of a Digest answer, unquoted.
    static func fields(_ answer: String) -> [String: String] {
        guard let challenge = HTTPChallenge.parse(answer).first, challenge.isScheme("Digest") else { return [:] }
        return Dictionary(challenge.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func theWorkedExampleOfRFC7616GivesItsResponses() throws {
        let challenges = HTTPChallenge.parse(Self.rfcChallenges)
        #expect(challenges.map(\.scheme) == ["Digest", "Digest"])
        let sha256 = try DigestChallenge(challenges[0])
        let md5 = try DigestChallenge(challenges[1])
        let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        func answer(_ terms: DigestChallenge) -> String {
            terms.answer(
                user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html", count: 1,
                cnonce: cnonce)
        }
        // RFC 7616, section 3.9.1, field by field and in its order.
        #expect(
            answer(sha256)
                == #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
        )
        #expect(
            answer(md5)
                == #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, response="8ca523f5e9506fed4657c9700eebdbec", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
        )
        // A password chooses SHA-256 of the two.
        let offered = Self.challenge(Self.rfcChallenges)
        #expect(offered.schemes == ["Digest", "Digest"])
        #expect(offered.realm == "http-auth@example.org")
        #expect(offered.credentialScheme == "Digest")
        #expect(try offered.passwordAnswer().get() == .digest(sha256))
    }

    @Test func theParserReadsRFC9110sGrammar() {
        // RFC 9110, section 11.6.1: two challenges in one field, an escaped quote, a comma in quotes.
        let challenges = HTTPChallenge.parse(
            #"Newauth realm="apps", type=1, title="Login to \"apps\", please", Basic realm="simple""#)
        #expect(challenges.map(\.scheme) == ["Newauth", "Basic"])
        #expect(challenges[0].parameter("realm") == "apps")
        #expect(challenges[0].parameter("type") == "1")
        #expect(challenges[0].parameter("title") == #"Login to "apps", please"#)
        #expect(challenges[1].parameter("realm") == "simple")

        // Token68, bare schemes, empty elements, names in any case, spaces around `=`.
        let mixed = HTTPChallenge.parse(#" , Negotiate YIIabc+/==, NTLM,, Bearer REALM = "api" ,Basic"#)
        #expect(mixed.map(\.scheme) == ["Negotiate", "NTLM", "Bearer", "Basic"])
        #expect(mixed[0].token68 == "YIIabc+/==")
        #expect(mixed[2].parameter("realm") == "api")

        // What does not follow the grammar is skipped to the next comma; a quote that never ends
        // ends the field.
        let broken = HTTPChallenge.parse(#"Digest realm="a" junk, nonce=x y, =z, qop="auth", Basic realm="b"#)
        #expect(broken.map(\.scheme) == ["Digest", "Basic"])
        #expect(broken[0].parameters.map(\.name) == ["qop"])
        #expect(broken[1].parameters.isEmpty)
        // A control character in a quoted string drops the parameter (it would go back in a
        // header): the rest is read.
        let control = HTTPChallenge.parse("Digest realm=\"a\r\nX: y\", nonce=\"n\"")
        #expect(control.first?.parameters.map(\.name) == ["nonce"])
        #expect(HTTPChallenge.parse("").isEmpty)
        #expect(HTTPChallenge.parse(#"realm="no scheme""#).isEmpty)
    }

    @Test func aPasswordGoesInTheStrongestSchemeOffered() throws {
        let nonce = #"realm="r", nonce="n", qop="auth""#
        func scheme(_ header: String) -> String? {
            switch try? Self.challenge(header).passwordAnswer().get() {
            case .digest(let terms)?: "Digest \(terms.algorithmName ?? "none")"
            case .basic?: "Basic"
            case nil: nil
            }
        }
        #expect(scheme(#"Basic realm="r", Digest \#(nonce), algorithm=MD5"#) == "Digest MD5")
        #expect(
            scheme(#"Digest \#(nonce), algorithm=MD5, Digest \#(nonce), algorithm=SHA-256, Basic realm="r""#)
                == "Digest SHA-256")
        #expect(
            scheme(#"Digest \#(nonce), algorithm=MD5, Digest \#(nonce), algorithm=SHA-256-sess"#)
                == "Digest SHA-256-sess")
        #expect(
            scheme(#"Digest \#(nonce), algorithm=SHA-256-sess, Digest \#(nonce), algorithm=SHA-256"#)
                == "Digest SHA-256")
        #expect(scheme(#"Digest \#(nonce), algorithm=MD5-sess, Digest \#(nonce)"#) == "Digest none")
        // RFC 2069: no qop.
        #expect(scheme(#"Digest realm="r", nonce="n""#) == "Digest none")
        // A Digest Downstream cannot answer leaves Basic, when the server offers it too.
        #expect(scheme(#"Digest \#(nonce), algorithm=SHA-512-256, Basic realm="r""#) == "Basic")
        #expect(scheme(#"Basic realm="r""#) == "Basic")
    }

    @Test(arguments: [
        ("NTLM, Negotiate", "the server offers NTLM; Negotiate"),
        (#"Bearer realm="api""#, "the server offers Bearer"),
        (#"Digest realm="r", nonce="n", algorithm=SHA-512-256, qop="auth""#, "Digest with algorithm SHA-512-256"),
        (#"Digest realm="r", nonce="n", qop="auth-int""#, "Digest with qop auth-int only"),
        (#"Digest realm="r", algorithm=SHA-256, qop="auth""#, "Digest without a nonce"),
        (#"Digest realm="r", nonce="n", algorithm=MD5-sess"#, "Digest MD5-sess without qop"),
        ("", "the server offers no scheme (no WWW-Authenticate)"),
    ])
    func aChallengeNoPasswordCanAnswerSaysWhatItOffers(header: String, expected: String) {
        let challenge = Self.challenge(header.isEmpty ? nil : header)
        #expect(challenge.credentialScheme == nil)
        guard case .failure(let error) = challenge.passwordAnswer() else {
            Issue.record("\(header) was answered")
            return
        }
        #expect(error.kind == .unsupportedAuthentication)
        #expect(error.statusCode == 401)
        #expect(error.reason.contains(expected), "\(error.reason)")
        #expect(error.description.contains("The password was not sent"), "\(error.description)")
        #expect(!error.isResumable)

        var credentials = RequestCredentials.none
        #expect(credentials.take(.useCredential(user: "u", password: "secret"), for: challenge) == error)
        var request = URLRequest(url: URL(string: "http://example.org/a")!)
        credentials.apply(to: &request)
        #expect(request.allHTTPHeaderFields?.isEmpty ?? true)
    }

    @Test func aProxysDigestForATunnelIsNotAnsweredAndItsBasicIs() {
        // libcurl gives the schemes of a CONNECT's 407 only.
        let tunnel = Self.challenge("Digest", status: 407, url: "https://example.org/a")
        guard case .failure(let error) = tunnel.passwordAnswer() else {
            Issue.record("a tunnel's Digest was answered")
            return
        }
        #expect(error.kind == .unsupportedAuthentication && error.statusCode == 407)
        #expect(error.reason.contains("the proxy offers Digest, for the tunnel (CONNECT)"), "\(error.reason)")
        #expect(Self.challenge("Basic", status: 407, url: "https://example.org/a").credentialScheme == "Basic")
        // A proxy that gets the request itself (HTTP) gives its parameters.
        let plain = Self.challenge(#"Digest realm="p", nonce="n", qop="auth""#, status: 407)
        #expect(plain.credentialScheme == "Digest")
    }

    @Test func eachRequestGetsItsOwnAnswerForItsTarget() throws {
        var credentials = RequestCredentials.none
        let challenge = Self.challenge(Self.rfcChallenges)
        #expect(credentials.take(.useCredential(user: "Mufasa", password: "Circle of Life"), for: challenge) == nil)
        var answers: [[String: String]] = []
        for target in ["/dir/index.html", "/dir/a%20b.bin?sig=1&x=%2F", "/dir/index.html"] {
            var request = URLRequest(url: URL(string: "http://example.org\(target)")!)
            request.setValue("bytes=0-", forHTTPHeaderField: "Range")
            credentials.apply(to: &request)
            let answer = Self.fields(try #require(request.value(forHTTPHeaderField: "Authorization")))
            #expect(answer["uri"] == target)
            #expect(request.value(forHTTPHeaderField: "Proxy-Authorization") == nil)
            answers.append(answer)
        }
        #expect(answers.map { $0["nc"] } == ["00000001", "00000002", "00000003"])
        #expect(Set(answers.compactMap { $0["cnonce"] }).count == 3)
        #expect(answers.allSatisfy { $0["algorithm"] == "SHA-256" && $0["qop"] == "auth" })
        #expect(Set(answers.compactMap { $0["response"] }).count == 3)

        // A redirect's request: answered again for its target; one that lost the header keeps none.
        var redirected = URLRequest(url: URL(string: "http://example.org/moved")!)
        redirected.setValue("old", forHTTPHeaderField: "Authorization")
        credentials.reapply(to: &redirected)
        #expect(Self.fields(try #require(redirected.value(forHTTPHeaderField: "Authorization")))["uri"] == "/moved")
        var elsewhere = URLRequest(url: URL(string: "http://other.example/x")!)
        credentials.reapply(to: &elsewhere)
        #expect(elsewhere.value(forHTTPHeaderField: "Authorization") == nil)

        // A stale nonce is taken without asking again; the count starts again.
        let stale = Self.challenge(
            #"Digest realm="http-auth@example.org", qop="auth", algorithm=SHA-256, nonce="fresh", stale=true"#)
        #expect(credentials.renewsStaleNonce(for: stale))
        var next = URLRequest(url: URL(string: "http://example.org/")!)
        credentials.apply(to: &next)
        let renewed = Self.fields(try #require(next.value(forHTTPHeaderField: "Authorization")))
        #expect(renewed["nonce"] == "fresh" && renewed["nc"] == "00000001" && renewed["uri"] == "/")
        // Not stale, or not Digest: the handler is asked.
        #expect(!credentials.renewsStaleNonce(for: Self.challenge(Self.rfcChallenges)))
        #expect(!RequestCredentials(authorization: "Basic eA==").renewsStaleNonce(for: stale))
    }

    @Test func concurrentRequestsNeverShareANonceCount() async throws {
        let challenge = try DigestChallenge(HTTPChallenge.parse(Self.rfcChallenges)[0])
        let authorizer = DigestAuthorizer(user: "u", password: "p", challenge: challenge)
        let counts = await withTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<250).map { index in
                        Self.fields(authorizer.value(method: "GET", uri: "/\(task)/\(index)"))["nc"] ?? ""
                    }
                }
            }
            var all: [String] = []
            for await counts in group { all += counts }
            return all
        }
        #expect(counts.count == 2000)
        #expect(Set(counts) == Set((1...2000).map { String(format: "%08x", $0) }))
    }

    @Test func sessionVariantsKeepOneCnonceUserhashHidesTheNameAndOtherNamesAreEncoded() throws {
        let session = try DigestChallenge(
            HTTPChallenge.parse(#"Digest realm="r", nonce="n", qop="auth", algorithm=SHA-256-sess, userhash=true"#)[0])
        #expect(session.isSession && session.userhash)
        let authorizer = DigestAuthorizer(user: "Mufasa", password: "Circle of Life", challenge: session)
        let first = Self.fields(authorizer.value(method: "GET", uri: "/a"))
        let second = Self.fields(authorizer.value(method: "GET", uri: "/a"))
        // The session key covers the first cnonce: every answer with this nonce has it.
        #expect(first["cnonce"] == second["cnonce"])
        #expect(first["nc"] == "00000001" && second["nc"] == "00000002")
        #expect(first["response"] != second["response"])
        #expect(first["userhash"] == "true")
        #expect(first["username"] == session.hashed("Mufasa:r"))
        #expect(first["algorithm"] == "SHA-256-sess")

        // RFC 7616, section 3.9.2's user name, which is not ASCII, goes in `username*`.
        let plain = try DigestChallenge(HTTPChallenge.parse(#"Digest realm="r", nonce="n", qop="auth""#)[0])
        let encoded = plain.answer(user: "Jäsøn Doe", password: "p", method: "GET", uri: "/", count: 1, cnonce: "c")
        #expect(encoded.contains("username*=UTF-8''J%C3%A4s%C3%B8n%20Doe"), "\(encoded)")
        #expect(!encoded.contains("username="))
        // Quotes and backslashes are escaped; RFC 2069 has no count, cnonce nor qop.
        let legacy = try DigestChallenge(HTTPChallenge.parse(#"Digest realm="a \"b\"", nonce="n""#)[0])
        let answer = legacy.answer(user: #"x"y\z"#, password: "p", method: "GET", uri: "/", count: 1, cnonce: "c")
        #expect(answer.hasPrefix(#"Digest username="x\"y\\z", realm="a \"b\"", uri="/", nonce="n", response=""#))
        #expect(!answer.contains("nc=") && !answer.contains("cnonce") && !answer.contains("qop"))
        #expect(Self.fields(answer)["username"] == #"x"y\z"#)
    }

    @Test func theRequestTargetIsThePathAndQueryAsSent() {
        #expect(RequestCredentials.requestTarget(of: URL(string: "http://h:8080")) == "/")
        #expect(
            RequestCredentials.requestTarget(of: URL(string: "http://h/a%20b/c?x=1&y=%2F#frag")) == "/a%20b/c?x=1&y=%2F"
        )
    }
}
