import Foundation

/// The terms of a Digest challenge (RFC 7616) that Downstream can answer: its hash, whether it is
/// a session variant (`-sess`), and what an answer repeats (realm, nonce, opaque).
///
/// Downstream answers `SHA-256` and `MD5` (also when the challenge names no algorithm), and
/// their `-sess` variants, with `qop=auth` when the challenge offers it, or in the way of RFC
/// 2069 when it offers no `qop` (not for a session variant, which needs a cnonce). A challenge
/// that offers only `auth-int`, another algorithm (`SHA-512-256`), or no nonce is not answered.
struct DigestChallenge: Sendable, Hashable {
    /// Why a challenge cannot be answered, in words (`"Digest with algorithm SHA-512-256"`).
    struct Unanswerable: Error, Sendable, Hashable {
        var description: String
    }

    /// The hash: ``Digest/Algorithm/sha256`` or ``Digest/Algorithm/md5``.
    var hash: Digest.Algorithm
    /// Whether the session key covers the nonce and the first cnonce (`-sess`).
    var isSession: Bool
    /// The `algorithm` parameter as the server wrote it, repeated in the answer; nil when it
    /// wrote none (MD5).
    var algorithmName: String?
    var realm: String
    var nonce: String
    var opaque: String?
    /// Whether the answer has `qop=auth`, a nonce count and a cnonce; false for a challenge
    /// without `qop` (RFC 2069).
    var hasQualityOfProtection: Bool
    /// Whether the server accepts a hashed user name (`userhash=true`): Downstream then sends one.
    var userhash: Bool
    /// Whether the server says the nonce of the previous request was stale (the credentials
    /// themselves were right).
    var isStale: Bool

    /// The terms of `challenge`, a Digest challenge; throws what keeps Downstream from answering
    /// it.
    init(_ challenge: HTTPChallenge) throws(Unanswerable) {
        let named = challenge.parameter("algorithm")
        let algorithm = (named ?? "MD5").uppercased()
        switch algorithm {
        case "SHA-256": (hash, isSession) = (.sha256, false)
        case "SHA-256-SESS": (hash, isSession) = (.sha256, true)
        case "MD5": (hash, isSession) = (.md5, false)
        case "MD5-SESS": (hash, isSession) = (.md5, true)
        default: throw Unanswerable(description: "Digest with algorithm \(named ?? "")")
        }
        guard let nonce = challenge.parameter("nonce") else {
            throw Unanswerable(description: "Digest without a nonce")
        }
        if let offered = challenge.parameter("qop") {
            let options = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard options.contains("auth") else {
                throw Unanswerable(description: "Digest with qop \(options.joined(separator: ", ")) only")
            }
            hasQualityOfProtection = true
        } else {
            guard !isSession else { throw Unanswerable(description: "Digest \(named ?? "") without qop") }
            hasQualityOfProtection = false
        }
        algorithmName = named
        realm = challenge.parameter("realm") ?? ""
        self.nonce = nonce
        opaque = challenge.parameter("opaque")
        userhash = challenge.parameter("userhash")?.lowercased() == "true"
        isStale = challenge.parameter("stale")?.lowercased() == "true"
    }

    /// How much an answer proves, to choose among the challenges a server offers: SHA-256, then
    /// SHA-256-sess, MD5, MD5-sess (every one above Basic's 0).
    var strength: Int {
        (hash == .sha256 ? 3 : 1) + (isSession ? 0 : 1)
    }

    /// `H(text)`: the hash of `text`'s UTF-8 bytes, in lowercase hexadecimal.
    func hashed(_ text: String) -> String {
        Digest(hash, of: Array(text.utf8)).hexValue
    }

    /// The header value that answers the challenge for one request (RFC 7616, section 3.4): of
    /// `method` to `uri` (the request-target as sent), the `count`-th with this nonce, with
    /// `cnonce` (for a session variant, the first one, which its session key covers).
    func answer(
        user: String, password: String, method: String, uri: String, count: UInt32, cnonce: String
    ) -> String {
        var secret = hashed("\(user):\(realm):\(password)")
        if isSession {
            secret = hashed("\(secret):\(nonce):\(cnonce)")
        }
        let request = hashed("\(method):\(uri)")
        let nonceCount = String(count, radix: 16).leftPadded(to: 8)
        let response =
            hasQualityOfProtection
            ? hashed("\(secret):\(nonce):\(nonceCount):\(cnonce):auth:\(request)")
            : hashed("\(secret):\(nonce):\(request)")
        var fields: [String] = []
        if userhash {
            fields.append("username=\(Self.quoted(hashed("\(user):\(realm)")))")
        } else if user.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields.append("username=\(Self.quoted(user))")
        } else {
            // Not ASCII, or a control character: RFC 8187's encoding (RFC 7616, section 3.4.4).
            fields.append("username*=UTF-8''\(Self.percentEncoded(user))")
        }
        fields.append("realm=\(Self.quoted(realm))")
        fields.append("uri=\(Self.quoted(uri))")
        if let algorithmName {
            fields.append("algorithm=\(algorithmName)")
        }
        fields.append("nonce=\(Self.quoted(nonce))")
        if hasQualityOfProtection {
            fields.append("nc=\(nonceCount)")
            fields.append("cnonce=\(Self.quoted(cnonce))")
            fields.append("qop=auth")
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque {
            fields.append("opaque=\(Self.quoted(opaque))")
        }
        if userhash {
            fields.append("userhash=true")
        }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// `text` as a quoted string: `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }

    /// `text`'s UTF-8 bytes with every one but RFC 8187's `attr-char` percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
                UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
                UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

extension String {
    /// The string with zeros before it up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: Swift.max(0, length - count)) + self
    }
}
