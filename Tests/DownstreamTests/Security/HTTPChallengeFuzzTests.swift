@testable import Downstream
import Foundation
import Testing

/// The parser of `WWW-Authenticate` reads whatever a server sends: 100,000+ inputs from a
/// fixed-seed generator (random bytes, and real challenges mutated: bytes flipped, cut short,
/// quotes unbalanced, backslashes at the end, control characters, text that is not ASCII, huge
/// numbers of parameters) never crash it or hang it, and what it returns keeps its promises. A
/// Digest answer made from any of them is one header line.
@Suite(.timeLimit(.minutes(3)))
struct HTTPChallengeFuzzTests {
    /// SplitMix64 (Steele, Lea and Flood), seeded: the same inputs on every run.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [String] = [
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
    ]

    /// Bytes that matter to the grammar, and some that have no business in a header.
    static let specials: [[UInt8]] = [
        [0x22], [0x5C], [0x2C], [0x3D], [0x20], [0x09], [0x00], [0x0D], [0x0A], [0x7F], [0xFF], [0xC3],
        Array("é".utf8), Array("😀".utf8), [0xE2, 0x80], Array("\\\"".utf8), Array(", ,".utf8),
        Array("Digest ".utf8), Array("realm=".utf8), Array("nonce=\"".utf8),
    ]

    @Test func anyInputIsReadWithoutCrashingAndKeepsThePromises() {
        var random = SplitMix64(state: 0x5EED_7616_9110)
        var count = 0
        var answered = 0
        var maximumChallenges = 0
        for round in 0..<100_000 {
            let input = Self.input(round, &random)
            let (challenges, digestAnswered) = Self.check(input)
            count += 1
            if digestAnswered { answered += 1 }
            maximumChallenges = max(maximumChallenges, challenges)
        }
        // A few huge inputs: thousands of parameters, challenges, commas, escapes.
        for size in [10_000, 30_000] {
            let many = "Digest " + (0..<size).map { "p\($0)=\"v\\\"\($0),\"" }.joined(separator: ", ")
            #expect(Self.check(many).challenges == 1)
            let schemes = (0..<size).map { "S\($0)" }.joined(separator: ", ")
            #expect(Self.check(schemes).challenges == size)
            _ = Self.check(String(repeating: ",", count: size * 10))
            _ = Self.check("Digest realm=\"" + String(repeating: "\\", count: size * 5))
            _ = Self.check("Digest " + String(repeating: "a=b ", count: size))
            count += 5
        }
        #expect(count >= 100_000)
        // The mutations reach the whole grammar: some still answer with Digest, some parse to many
        // challenges.
        #expect(answered > 1_000, "\(answered)")
        #expect(maximumChallenges > 3)
    }

    /// The `round`-th input: random bytes, or a mutated real challenge.
    static func input(_ round: Int, _ random: inout SplitMix64) -> String {
        var bytes: [UInt8]
        if round % 10 == 0 {
            bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        } else {
            bytes = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)].utf8)
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                mutate(&bytes, &random)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<8, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        case 1:
            bytes.removeSubrange(position...)
        case 2:
            bytes.insert(contentsOf: specials[Int.random(in: 0..<specials.count, using: &random)], at: position)
        case 3:
            bytes.append(0x5C)
        case 4 where !bytes.isEmpty:
            // Quotes removed: the rest is unbalanced.
            if let quote = bytes[position...].firstIndex(of: 0x22) { bytes.remove(at: quote) }
        case 5:
            let other = Array(seeds[Int.random(in: 0..<seeds.count, using: &random)].utf8)
            bytes.insert(contentsOf: other[Int.random(in: 0...other.count, using: &random)...], at: position)
        case 6 where !bytes.isEmpty:
            bytes[position] = UInt8.random(in: 0...255, using: &random)
        default:
            let parameter = Array(", x\(position)=\"\(position)\"".utf8)
            for _ in 0..<Int.random(in: 1...6, using: &random) { bytes.insert(contentsOf: parameter, at: position) }
        }
    }

    /// Parses `input` (also as a challenge a password answers, and answers it), checks what came
    /// out (recording an issue for each broken promise: `#expect` on every check would cost more
    /// than the parsing); returns how many challenges it holds and whether a Digest answer was
    /// made.
    @discardableResult
    static func check(_ input: String, sourceLocation: SourceLocation = #_sourceLocation) -> (
        challenges: Int, digestAnswered: Bool
    ) {
        func require(_ condition: Bool, _ what: @autoclosure () -> String) {
            if !condition { Issue.record("\(what()) for \(input.debugDescription)", sourceLocation: sourceLocation) }
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
        guard case .success(.digest(let terms)) = asked.passwordAnswer() else { return (challenges.count, false) }
        let answer = terms.answer(
            user: "ü\"\\\r\n", password: "p", method: "GET", uri: "/a%20b?c=d", count: 7, cnonce: "c")
        require(!answer.utf8.contains(where: isControl), "answer \(answer.debugDescription)")
        let parsed = HTTPChallenge.parse(answer)
        require(parsed.count == 1 && parsed.first?.isScheme("Digest") == true, "answer \(answer.debugDescription)")
        require(
            parsed.first?.parameter("nonce") == terms.nonce && parsed.first?.parameter("realm") == terms.realm
                && parsed.first?.parameter("uri") == "/a%20b?c=d", "answer \(answer.debugDescription)")
        return (challenges.count, true)
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
