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

    /// The first authentication scheme the server offers (`Basic`, `Bearer`, `Digest`...).
    public var scheme: String? {
        header?.split(whereSeparator: { $0 == " " || $0 == "," }).first.map(String.init)
    }

    /// The realm the server names, if any.
    public var realm: String? {
        guard let header, let range = header.range(of: "realm=", options: .caseInsensitive) else { return nil }
        let rest = header[range.upperBound...]
        if rest.hasPrefix("\"") {
            return rest.dropFirst().prefix { $0 != "\"" }.description
        }
        return rest.prefix { $0 != "," && $0 != " " }.description
    }

    /// How to answer a challenge.
    public struct Decision: Sendable, Hashable {
        let authorization: String?

        /// Send the request again with HTTP Basic credentials.
        public static func useCredential(user: String, password: String) -> Decision {
            let token = Data("\(user):\(password)".utf8).base64EncodedString()
            return Decision(authorization: "Basic \(token)")
        }

        /// Send the request again with this `Authorization` (or, for a proxy,
        /// `Proxy-Authorization`) value, for example `"Bearer <token>"`.
        public static func authorization(_ value: String) -> Decision {
            Decision(authorization: value)
        }

        /// Do not answer: the download fails with the `401` (or `407`) status.
        public static let fail = Decision(authorization: nil)
    }
}
