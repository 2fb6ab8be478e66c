import Foundation

extension AuthenticationChallenge {
    /// What a user name and password answer a challenge with.
    enum PasswordAnswer: Sendable, Hashable {
        /// HTTP Digest, on the challenge's terms.
        case digest(DigestChallenge)
        /// HTTP Basic.
        case basic

        /// The scheme's name.
        var scheme: String {
            switch self {
            case .digest: "Digest"
            case .basic: "Basic"
            }
        }
    }

    /// The challenges of the header, in order.
    var challenges: [HTTPChallenge] {
        header.map(HTTPChallenge.parse) ?? []
    }

    /// Whether a proxy refused the tunnel (`CONNECT`) of an HTTPS request: libcurl gives only
    /// the schemes of that answer, without their parameters.
    var isTunnel: Bool {
        isProxy && response.url?.scheme?.lowercased() == "https"
    }

    /// The strongest scheme that carries a password and that the server offers: Digest (see
    /// ``DigestChallenge/strength``), then Basic; or, when it offers none Downstream can answer,
    /// the failure that says which it offered.
    func passwordAnswer() -> Result<PasswordAnswer, DownloadError> {
        var best: (strength: Int, answer: PasswordAnswer)?
        var unanswerable: [String] = []
        for challenge in challenges {
            if challenge.isScheme("Basic") {
                if best == nil { best = (0, .basic) }
            } else if challenge.isScheme("Digest") {
                guard !isTunnel else {
                    unanswerable.append("Digest, for the tunnel (CONNECT) of an HTTPS request: libcurl keeps its nonce")
                    continue
                }
                do {
                    let digest = try DigestChallenge(challenge)
                    if digest.strength > best?.strength ?? -1 { best = (digest.strength, .digest(digest)) }
                } catch {
                    unanswerable.append(error.description)
                }
            } else {
                unanswerable.append(challenge.scheme)
            }
        }
        if let best { return .success(best.answer) }
        let asker = isProxy ? "the proxy" : "the server"
        let offered =
            unanswerable.isEmpty
            ? "\(asker) offers no scheme (no \(isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"))"
            : "\(asker) offers \(unanswerable.joined(separator: "; "))"
        return .failure(.unsupportedAuthentication(statusCode: response.statusCode, offered: offered))
    }

    /// The strongest Digest challenge that says the nonce of the last request was stale, if the
    /// header has one Downstream can answer.
    func staleDigest() -> DigestChallenge? {
        guard !isTunnel else { return nil }
        return
            challenges
            .filter { $0.isScheme("Digest") }
            .compactMap { try? DigestChallenge($0) }
            .filter(\.isStale)
            .max { $0.strength < $1.strength }
    }
}
