import Foundation

/// A server (or proxy) asks for credentials: the request was answered `401 Unauthorized` (or
/// `407 Proxy Authentication Required`). Your authentication handler answers it (see
/// ``AuthenticationSettings/handler``).
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The download whose request was challenged.
    public var downloadID: DownloadID
    /// The response with the challenge.
    public var response: ServerResponse
    /// How many challenges of this run of the download were answered before this one (with
    /// credentials the server then refused, if it asks again).
    public var previousFailureCount: Int

    /// Whether a proxy asks (`407`), rather than the server (`401`).
    public var isProxy: Bool { response.statusCode == 407 }

    /// The challenge header's value (`WWW-Authenticate`, or `Proxy-Authenticate` for a proxy).
    public var header: String? {
        response.value(forHTTPHeaderField: isProxy ? "Proxy-Authenticate" : "WWW-Authenticate")
    }

    /// The authentication schemes the server offers, in its order, as it names them (`Digest`,
    /// `Basic`, `NTLM`...): one per challenge of the header (a header may hold several, and
    /// several headers arrive as one).
    ///
    /// For a proxy's answer to the `CONNECT` of an HTTPS download, libcurl gives the schemes
    /// alone, without their parameters (no realm, no nonce).
    public var schemes: [String] {
        challenges.map(\.scheme)
    }

    /// The first authentication scheme the server offers (`Basic`, `Bearer`, `Digest`...).
    public var scheme: String? {
        schemes.first
    }

    /// The realm the server names (of the first challenge that names one), if any.
    public var realm: String? {
        challenges.lazy.compactMap { $0.parameter("realm") }.first
    }

    /// The scheme ``Decision/useCredential(user:password:)`` answers this challenge with:
    /// `Digest` (with SHA-256 or MD5, or their session variants) or `Basic`, the strongest one
    /// the server offers; nil when it offers none of them in a form Downstream can answer (NTLM,
    /// Negotiate or Bearer only, or Digest with another algorithm). A user name and password
    /// then fail the download with ``DownloadError/Kind/unsupportedAuthentication``, and the
    /// password is not sent.
    public var credentialScheme: String? {
        guard case .success(let answer) = passwordAnswer() else { return nil }
        return answer.scheme
    }

    /// How to answer a challenge.
    public struct Decision: Sendable, Hashable {
        enum Answer: Sendable, Hashable {
            /// A user name and password, in the strongest scheme the challenge offers.
            case password(user: String, password: String)
            /// A header value, as given.
            case header(String)
            /// No answer.
            case none
        }

        let answer: Answer

        /// Send the request again with a user name and password, in the strongest scheme the
        /// server offers that Downstream can answer (see ``AuthenticationChallenge/credentialScheme``):
        /// HTTP Digest (RFC 7616) with SHA-256, then with MD5 (and their `-sess` variants), then
        /// HTTP Basic. The password is never sent in a scheme the server did not offer: a
        /// challenge that offers none of these fails the download with
        /// ``DownloadError/Kind/unsupportedAuthentication``.
        ///
        /// With Digest, every later request of the download (each range, each segment's
        /// connection, each retry) gets an answer of its own, for its method and URL; a `401`
        /// that says the server's nonce is stale (`stale=true`) is answered again with the new
        /// nonce without asking your handler (it counts against
        /// ``AuthenticationSettings/maximumAttempts``).
        public static func useCredential(user: String, password: String) -> Decision {
            Decision(answer: .password(user: user, password: password))
        }

        /// Send the request again with this `Authorization` (or, for a proxy,
        /// `Proxy-Authorization`) value, for example `"Bearer <token>"`, on every later request
        /// of the download.
        public static func authorization(_ value: String) -> Decision {
            Decision(answer: .header(value))
        }

        /// Do not answer: the download fails with the `401` (or `407`) status.
        public static let fail = Decision(answer: .none)
    }
}
