/// HTTP Digest authentication (RFC 7616) that a route asks for (``Route/requiredDigest``), or a
/// ``TestProxy``: the credentials it accepts, and what its challenges offer.
///
/// A request without a valid answer is answered `401` (`407` by a proxy) with one challenge per
/// algorithm of ``algorithms``, in that order, each with the realm, a fresh nonce, an opaque value
/// and the ``qop`` offered, then the ``otherChallenges``: in `WWW-Authenticate` fields of their
/// own, or in one when ``challengesInOneField``.
///
/// An answer is checked as RFC 7616 says: the user name (or, with ``userhash``, its hash, or an
/// RFC 8187 `username*`), the realm, a nonce this route (or proxy) gave, an algorithm it offered,
/// `uri` equal to the request-target as it arrived (for a proxy, the absolute URL or its path and
/// query; `host:port` for a `CONNECT`), the `qop`, a nonce count (`nc`) that this nonce was never
/// answered with before (a request replayed, or a count used twice, is refused), a `cnonce`, the
/// `opaque` value, and the `response` for the request's method, computed from the password
/// (`SHA-256`, `MD5` and their `-sess` variants, whose session key covers the first cnonce that
/// came with the nonce). `auth-int` is checked against the hash of an empty body.
///
/// ```swift
/// var route = Route(body: .pattern(count: 1 << 20))
/// route.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
/// route.requiredDigest?.algorithms = ["SHA-256", "MD5"]
/// server.setRoute("/private.bin", route)
/// ```
public struct DigestAuthentication: Sendable {
    /// The user name accepted.
    public var user: String

    /// The password accepted.
    public var password: String

    /// The realm of the challenges. Defaults to `downstream`.
    public var realm: String

    /// The `algorithm` of each challenge offered, in order: `SHA-256`, `MD5`, `SHA-256-sess` and
    /// `MD5-sess` are checked; any other name (`SHA-512-256`) is offered and never accepted. An
    /// empty string offers a challenge without an `algorithm` parameter (MD5, as RFC 2069 and
    /// 2617 have it). Defaults to `["SHA-256"]`.
    public var algorithms: [String]

    /// The `qop` values offered (`auth`, `auth-int`): an answer must use one of them. Empty
    /// offers no `qop`: an answer then has neither `qop`, nonce count nor cnonce (RFC 2069).
    /// Defaults to `["auth"]`.
    public var qop: [String]

    /// Whether the challenges say `userhash=true`, and a hashed user name
    /// (`H(user ":" realm)`) is accepted. Defaults to `false`.
    public var userhash: Bool

    /// Challenges of other schemes offered after the Digest ones, exactly as given (for
    /// example `Basic realm="downstream"`, or `NTLM`); an answer in their schemes is refused.
    /// Defaults to none.
    public var otherChallenges: [String]

    /// Whether every challenge goes in one `WWW-Authenticate` field, separated by `", "`, rather
    /// than in a field each. Defaults to `false`.
    public var challengesInOneField: Bool

    /// When set, a nonce answers this many requests; the answer of the next request with it is
    /// checked, then refused with a new nonce and `stale=true` (the credentials were right, the
    /// nonce is too old). Defaults to `nil`: a nonce never goes stale.
    public var nonceUses: Int?

    /// Asks for `user` and `password`, with one SHA-256 challenge of realm `downstream` and
    /// `qop="auth"`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
        self.realm = "downstream"
        self.algorithms = ["SHA-256"]
        self.qop = ["auth"]
        self.userhash = false
        self.otherChallenges = []
        self.challengesInOneField = false
        self.nonceUses = nil
    }
}
