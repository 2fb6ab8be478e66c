import Testing

@testable import Downstream

/// Whatever challenge a server or proxy sends, what a handler is told of it is a part of it: a
/// scheme that is one word, a realm that is one quoted string or one token.
@Suite(Fuzzer.hangLimit)
struct AuthenticationChallengeFuzzTests {
    static let corpus = Fuzzer.Corpus(
        [
            "Basic realm=\"x\"", "Basic realm=\"WallyWorld\", charset=\"UTF-8\"", "Bearer",
            "Bearer realm=\"example\", error=\"invalid_token\", error_description=\"The access token expired\"",
            "Digest realm=\"x\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", qop=\"auth,auth-int\", algorithm=SHA-256",
            "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=MD5, "
                + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"",
            "Negotiate", "NTLM, Basic realm=unquoted",
            "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\"",
            "  Basic   realm = \"spaced\"", "basic REALM=\"upper\"", "",
        ],
        tokens: ["Basic", "Bearer", "Digest", "realm=", "REALM=", "nonce=", "qop=", "\"", ",", ", ", "=", "\\\""])

    @Test func theSchemeAndRealmArePartsOfTheChallenge() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xA07_4E41, rounds: 100_000) { fuzz in
            let value = fuzz.text(Self.corpus)
            let status = fuzz.oneIn(2) ? 401 : 407
            let name = status == 407 ? "Proxy-Authenticate" : (fuzz.oneIn(2) ? "WWW-Authenticate" : "www-authenticate")
            let challenge = AuthenticationChallenge(
                downloadID: DownloadID(),
                response: ServerResponse(url: nil, statusCode: status, headers: [name: value]),
                previousFailureCount: 0)
            fuzz.expect(challenge.isProxy == (status == 407) && challenge.header == value, "\(name): \(value)")
            // Separators are found among scalars: a mark after one makes a character of both.
            let isSeparator: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "," }
            if let scheme = challenge.scheme {
                // A token of the header (the parser skips what its grammar cannot read).
                fuzz.expect(
                    !scheme.isEmpty && !scheme.unicodeScalars.contains(where: isSeparator)
                        && HeaderField.problem(name: scheme, value: "") == nil
                        && value.utf8.firstRange(of: scheme.utf8) != nil,
                    "scheme \(scheme)")
            }
            // (No scheme is no challenge the parser could read: HTTPChallengeFuzzTests checks the
            // parser's grammar.)
            if let realm = challenge.realm {
                // A quoted string unescaped, or a token: one line, of what the header holds.
                fuzz.expect(
                    !realm.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
                        && realm.unicodeScalars.allSatisfy { value.unicodeScalars.contains($0) },
                    "realm \(realm)")
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
