@testable import Downstream
import Foundation
import Testing

/// The parser of `WWW-Authenticate` reads whatever a server sends: 100,000 inputs from a
/// fixed-seed ``Fuzzer`` (random bytes, and real challenges mutated: bytes flipped, cut short,
/// quotes unbalanced, backslashes at the end, control characters, text that is not ASCII, huge
/// numbers of parameters) never crash it or hang it, and what it returns keeps its promises. A
/// Digest answer made from any of them is one header line.
@Suite(Fuzzer.hangLimit)
struct HTTPChallengeFuzzTests {
    static let corpus = Fuzzer.Corpus(
        [
            HTTPDigestTests.rfcChallenges,
            #"Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", charset=UTF-8, userhash=true"#,
            #"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#,
            #"Digest realm="r", nonce="n", stale=TRUE, algorithm=MD5-sess, qop="auth""#,
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#,
            #"Basic realm="Dev", charset="UTF-8""#,
            "NTLM, Negotiate",
            "Negotiate YIIGlQYJKoZIhvcSAQICAQBuggaEMIIGgKADAgEFoQMCAQ6iBwMFACAAAACjggTPYYIEyzCCBMegAwIBBaEL==",
            #"Bearer realm="example", error="invalid_token", error_description="The access token expired, \"renew\" it""#,
            #"Digest realm="a,b", domain="/x /y", nonce="=,=", algorithm="SHA-256", qop=auth"#,
        ],
        // Words of the grammar; the fuzzer adds its own special bytes and numbers.
        tokens: [
            "\"", "\\", ",", "=", " ", "\t", "\\\"", ", ,", "Digest ", "realm=", "nonce=\"", "qop=", "stale=true",
            "algorithm=SHA-256", ", x=\"1\"",
        ])

    @Test func anyInputIsReadWithoutCrashingAndKeepsThePromises() async throws {
        // The loop runs on the fuzzer's thread, beside the concurrency pool: 100,000 rounds held
        // one of its threads for most of a minute in a debug build, and the other tests waited.
        let reach = Locked((answered: 0, maximumChallenges: 0))
        let fuzz = try await Fuzzer.run(seed: 0x5EED_7616_9110, rounds: 100_000) { fuzz in
            let outcome = Self.check(fuzz.text(Self.corpus))
            for problem in outcome.problems { fuzz.expect(false, problem) }
            reach.withLock { reach in
                if outcome.digestAnswered { reach.answered += 1 }
                reach.maximumChallenges = max(reach.maximumChallenges, outcome.challenges)
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds == 100_000)
        // The mutations reach the whole grammar: some still answer with Digest, some parse to many
        // challenges.
        let (answered, maximumChallenges) = reach.value
        #expect(answered > 1_000, "\(answered)")
        #expect(maximumChallenges > 3)
    }

    /// A few huge inputs: thousands of parameters, challenges, commas, escapes.
    @Test func hugeInputsAreReadInFull() async throws {
        let problems = try await onOwnThread {
            var problems: [String] = []
            for size in [10_000, 30_000] {
                let many = "Digest " + (0..<size).map { "p\($0)=\"v\\\"\($0),\"" }.joined(separator: ", ")
                let manyParameters = Self.check(many)
                problems += manyParameters.problems
                if manyParameters.challenges != 1 {
                    problems.append("\(size) parameters: \(manyParameters.challenges) challenges")
                }
                let schemes = Self.check((0..<size).map { "S\($0)" }.joined(separator: ", "))
                problems += schemes.problems
                if schemes.challenges != size { problems.append("\(size) schemes: \(schemes.challenges) challenges") }
                problems += Self.check(String(repeating: ",", count: size * 10)).problems
                problems += Self.check("Digest realm=\"" + String(repeating: "\\", count: size * 5)).problems
                problems += Self.check("Digest " + String(repeating: "a=b ", count: size)).problems
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// Parses `input` (also as a challenge a password answers, and answers it) and checks what
    /// came out; returns how many challenges it holds, whether a Digest answer was made, and each
    /// promise broken.
    static func check(_ input: String) -> (challenges: Int, digestAnswered: Bool, problems: [String]) {
        var problems: [String] = []
        func require(_ condition: Bool, _ what: @autoclosure () -> String) {
            if !condition { problems.append("\(what()) for \(input.debugDescription)") }
        }
        let challenges = HTTPChallenge.parse(input)
        for challenge in challenges {
            require(isToken(challenge.scheme), "scheme \(challenge.scheme.debugDescription)")
            for parameter in challenge.parameters {
                require(isToken(parameter.name), "parameter \(parameter.name.debugDescription)")
                require(parameter.name == parameter.name.lowercased(), "parameter \(parameter.name)")
                require(!parameter.value.utf8.contains(where: isControl), "value \(parameter.value.debugDescription)")
            }
            if let token68 = challenge.token68 {
                require(
                    !token68.isEmpty && !token68.utf8.contains { $0 <= 0x20 || $0 == 0x22 || $0 == 0x2C },
                    "token68 \(token68.debugDescription)")
            }
        }
        let response = ServerResponse(
            url: URL(string: "http://127.0.0.1/a%20b?c=d"), statusCode: 401, headers: ["WWW-Authenticate": input])
        let asked = AuthenticationChallenge(downloadID: DownloadID(), response: response, previousFailureCount: 0)
        guard case .success(.digest(let terms)) = asked.passwordAnswer() else {
            return (challenges.count, false, problems)
        }
        let answer = terms.answer(
            user: "ü\"\\\r\n", password: "p", method: "GET", uri: "/a%20b?c=d", count: 7, cnonce: "c")
        require(!answer.utf8.contains(where: isControl), "answer \(answer.debugDescription)")
        let parsed = HTTPChallenge.parse(answer)
        require(parsed.count == 1 && parsed.first?.isScheme("Digest") == true, "answer \(answer.debugDescription)")
        require(
            parsed.first?.parameter("nonce") == terms.nonce && parsed.first?.parameter("realm") == terms.realm
                && parsed.first?.parameter("uri") == "/a%20b?c=d", "answer \(answer.debugDescription)")
        return (challenges.count, true, problems)
    }

    /// A control character other than a horizontal tab.
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// Whether `text` is a token of RFC 9110.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60,
                    0x7C, 0x7E:
                    true
                default:
                    false
                }
            }
    }
}
