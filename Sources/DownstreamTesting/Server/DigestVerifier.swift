import Downstream
import Foundation

/// The checks of one route's (or a proxy's) ``DigestAuthentication``: the nonces it gave, and
/// the counts each was answered with. A plain value, changed under its owner's lock.
struct DigestVerifier {
    /// What becomes of a request.
    enum Verdict: Equatable {
        /// Its answer is right: serve it.
        case authorized
        /// Refuse it with these challenges (the values of `WWW-Authenticate` or
        /// `Proxy-Authenticate` fields).
        case refused(challenges: [String])
    }

    private struct NonceState {
        /// The requests it authorized.
        var uses = 0
        /// The nonce counts it was answered with.
        var counts: Set<UInt32> = []
        /// The cnonce of the first answer with it, which a `-sess` session key covers.
        var sessionCnonce: String?
    }

    private var nonces: [String: NonceState] = [:]
    private let opaque = Self.randomText()

    /// Checks `authorization`, the answer of a request of `method` whose `uri` may be any of
    /// `uris`, against `settings`.
    mutating func check(
        method: String, uris: [String], authorization: String?, settings: DigestAuthentication
    ) -> Verdict {
        guard let authorization, let fields = Self.fields(ofDigest: authorization), let nonce = fields["nonce"],
            var state = nonces[nonce]
        else {
            return refuse(settings, stale: false)
        }
        let isValid = validate(fields, nonce: nonce, state: &state, method: method, uris: uris, settings: settings)
        nonces[nonce] = state
        guard isValid else { return refuse(settings, stale: false) }
        if let limit = settings.nonceUses, state.uses >= limit {
            return refuse(settings, stale: true)
        }
        nonces[nonce]?.uses += 1
        return .authorized
    }

    /// The challenges of a refusal, with a new nonce.
    private mutating func refuse(_ settings: DigestAuthentication, stale: Bool) -> Verdict {
        let nonce = Self.randomText()
        nonces[nonce] = NonceState()
        var challenges: [String] = settings.algorithms.map { algorithm in
            var parameters = ["realm=\(Self.quoted(settings.realm))"]
            if !settings.qop.isEmpty {
                parameters.append("qop=\(Self.quoted(settings.qop.joined(separator: ", ")))")
            }
            if !algorithm.isEmpty {
                parameters.append("algorithm=\(algorithm)")
            }
            parameters.append("nonce=\(Self.quoted(nonce))")
            parameters.append("opaque=\(Self.quoted(opaque))")
            if settings.userhash {
                parameters.append("userhash=true")
            }
            if stale {
                parameters.append("stale=true")
            }
            return "Digest " + parameters.joined(separator: ", ")
        }
        challenges += settings.otherChallenges
        return .refused(challenges: settings.challengesInOneField ? [challenges.joined(separator: ", ")] : challenges)
    }

    /// Whether the answer's `fields` are right, for `nonce` (whose `state` records the count).
    private func validate(
        _ fields: [String: String], nonce: String, state: inout NonceState, method: String, uris: [String],
        settings: DigestAuthentication
    ) -> Bool {
        let realm = settings.realm
        let offered = settings.algorithms.map(Self.normalized)
        let algorithm = Self.normalized(fields["algorithm"] ?? "")
        guard fields["realm"] == realm, let uri = fields["uri"], uris.contains(uri), offered.contains(algorithm),
            fields["opaque"] == opaque, let response = fields["response"]
        else { return false }
        let hash: Digest.Algorithm
        switch algorithm {
        case "SHA-256", "SHA-256-SESS": hash = .sha256
        case "MD5", "MD5-SESS": hash = .md5
        default: return false
        }
        let h = { (text: String) in Digest(hash, of: Array(text.utf8)).hexValue }
        // Who answers.
        if fields["userhash"]?.lowercased() == "true" {
            guard settings.userhash, fields["username"] == h("\(settings.user):\(realm)") else { return false }
        } else if let extended = fields["username*"] {
            guard fields["username"] == nil, Self.decodedExtendedValue(extended) == settings.user else { return false }
        } else {
            guard fields["username"] == settings.user else { return false }
        }
        // The quality of protection and the count.
        let qop = fields["qop"]?.lowercased()
        let cnonce = fields["cnonce"]
        let nonceCount = fields["nc"]
        if settings.qop.isEmpty {
            guard qop == nil, cnonce == nil, nonceCount == nil, !algorithm.hasSuffix("-SESS") else { return false }
        } else {
            guard let qop, settings.qop.map({ $0.lowercased() }).contains(qop), let cnonce, !cnonce.isEmpty,
                let nonceCount, nonceCount.utf8.count == 8, let count = UInt32(nonceCount, radix: 16), count > 0,
                !state.counts.contains(count)
            else { return false }
        }
        var secret = h("\(settings.user):\(realm):\(settings.password)")
        if algorithm.hasSuffix("-SESS"), let cnonce {
            secret = h("\(secret):\(nonce):\(state.sessionCnonce ?? cnonce)")
        }
        let target = qop == "auth-int" ? h("\(method):\(uri):\(h(""))") : h("\(method):\(uri)")
        let expected =
            if let qop, let cnonce, let nonceCount {
                h("\(secret):\(nonce):\(nonceCount):\(cnonce):\(qop):\(target)")
            } else {
                h("\(secret):\(nonce):\(target)")
            }
        guard response.lowercased() == expected else { return false }
        if let nonceCount, let count = UInt32(nonceCount, radix: 16) {
            state.counts.insert(count)
        }
        if state.sessionCnonce == nil { state.sessionCnonce = cnonce }
        return true
    }

    /// An algorithm's name as compared: uppercase, none being MD5.
    private static func normalized(_ algorithm: String) -> String {
        algorithm.isEmpty ? "MD5" : algorithm.uppercased()
    }

    /// The parameters of a `Digest` answer, names lowercased and values unquoted; nil when it is
    /// not one, or a parameter is malformed or repeated.
    static func fields(ofDigest value: String) -> [String: String]? {
        let bytes = Array(value.utf8)
        guard bytes.count > 7, String(decoding: bytes[..<7], as: UTF8.self).lowercased() == "digest " else {
            return nil
        }
        var fields: [String: String] = [:]
        var index = 7
        while true {
            while index < bytes.count, [0x20, 0x09, UInt8(ascii: ",")].contains(bytes[index]) { index += 1 }
            guard index < bytes.count else { return fields }
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ",") {
                index += 1
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
                .trimmingCharacters(in: .whitespaces).lowercased()
            index += 1
            while index < bytes.count, bytes[index] == 0x20 { index += 1 }
            var valueBytes: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while true {
                    guard index < bytes.count else { return nil }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        guard index < bytes.count else { return nil }
                        valueBytes.append(bytes[index])
                        index += 1
                    } else {
                        valueBytes.append(byte)
                    }
                }
            } else {
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != 0x20 {
                    valueBytes.append(bytes[index])
                    index += 1
                }
            }
            guard !name.isEmpty, fields[name] == nil else { return nil }
            fields[name] = String(decoding: valueBytes, as: UTF8.self)
        }
    }

    /// The text of an RFC 8187 value in UTF-8 (`UTF-8''%C3%A9`); nil for another form.
    private static func decodedExtendedValue(_ value: String) -> String? {
        guard value.lowercased().hasPrefix("utf-8''") else { return nil }
        return String(value.dropFirst(7)).removingPercentEncoding
    }

    /// `text` as a quoted string.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// 18 random bytes in base64 (`+`, `/` included: they go in quoted strings).
    private static func randomText() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<18).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }
}
