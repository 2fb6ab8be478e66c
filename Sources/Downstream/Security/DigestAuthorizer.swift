import Foundation

/// Answers a server's (or proxy's) Digest challenge for every request of a download, each with
/// its own answer: for its method and request-target, with the next nonce count of the nonce
/// and a fresh cnonce (for a session variant, one cnonce per nonce, the one its session key
/// covers). Shared by the requests of a download, also those of concurrent segments: the count
/// is taken under a lock, the hashing is done outside it.
final class DigestAuthorizer: Sendable {
    private struct Session {
        var challenge: DigestChallenge
        /// The nonce count of the last answer made with the challenge's nonce.
        var count: UInt32 = 0
        /// The cnonce of a session variant: its session key covers it.
        var sessionCnonce: String?
    }

    let user: String
    private let password: String
    private let session: Locked<Session>

    init(user: String, password: String, challenge: DigestChallenge) {
        self.user = user
        self.password = password
        session = Locked(Session(challenge: challenge))
    }

    /// The header value for a request of `method` to `uri` (the request-target as sent: path and
    /// query, or `host:port` for a `CONNECT`).
    func value(method: String, uri: String) -> String {
        let fresh = Self.makeCnonce()
        let (challenge, count, cnonce) = session.withLock { session in
            session.count &+= 1
            var cnonce = fresh
            if session.challenge.isSession {
                cnonce = session.sessionCnonce ?? fresh
                session.sessionCnonce = cnonce
            }
            return (session.challenge, session.count, cnonce)
        }
        return challenge.answer(
            user: user, password: password, method: method, uri: uri, count: count, cnonce: cnonce)
    }

    /// Answers `challenge` from now on: the server's new nonce after a stale one. The count
    /// starts again.
    func renew(_ challenge: DigestChallenge) {
        session.withLock { $0 = Session(challenge: challenge) }
    }

    /// 16 random bytes in hexadecimal.
    private static func makeCnonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }.hexString
    }
}
