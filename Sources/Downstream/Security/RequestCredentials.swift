import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a download answered challenges with, as the headers of each of its requests:
/// `Authorization` for the server, `Proxy-Authorization` for a proxy. A fixed value (Basic, or a
/// header the app gave) goes as it is; a Digest answer is made for each request, for its method
/// and request-target. Copies share their Digest answers' nonce counts.
struct RequestCredentials: Sendable {
    /// How one header's value is made.
    enum Source: Sendable {
        /// The same value for every request.
        case value(String)
        /// An answer per request.
        case digest(DigestAuthorizer)
    }

    /// For `Authorization`.
    private(set) var server: Source?
    /// For `Proxy-Authorization`.
    private(set) var proxy: Source?

    /// No credentials.
    static let none = RequestCredentials()

    /// Credentials that send `authorization` to the server, if given.
    init(authorization: String? = nil) {
        server = authorization.map { .value($0) }
    }

    /// Sets each header the credentials have on `request`, made for its method and URL.
    func apply(to request: inout URLRequest) {
        for (name, source) in sources {
            request.setValue(Self.value(of: source, for: request), forHTTPHeaderField: name)
        }
    }

    /// Makes again, for a redirect's request, the headers the credentials have that it still
    /// carries; those the redirect dropped (another origin) stay dropped.
    func reapply(to request: inout URLRequest) {
        for (name, source) in sources where request.value(forHTTPHeaderField: name) != nil {
            request.setValue(Self.value(of: source, for: request), forHTTPHeaderField: name)
        }
    }

    /// Takes the answer `decision` gives to `challenge`, for every later request of the download.
    /// Returns the failure that ends the download instead: the challenge's status when the
    /// decision is not to answer, or, for a password, the schemes the server offers when none
    /// can carry it (the password is then never sent).
    mutating func take(
        _ decision: AuthenticationChallenge.Decision, for challenge: AuthenticationChallenge
    ) -> DownloadError? {
        let source: Source
        switch decision.answer {
        case .none:
            return .httpStatus(challenge.response.statusCode)
        case .header(let value):
            let name = challenge.isProxy ? "Proxy-Authorization" : "Authorization"
            if let problem = HeaderField.problem(name: name, value: value) {
                return .invalidRequest("the authentication handler's answer: \(problem)")
            }
            source = .value(value)
        case .password(let user, let password):
            switch challenge.passwordAnswer() {
            case .failure(let error):
                return error
            case .success(.basic):
                source = .value("Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
            case .success(.digest(let terms)):
                source = .digest(DigestAuthorizer(user: user, password: password, challenge: terms))
            }
        }
        if challenge.isProxy {
            proxy = source
        } else {
            server = source
        }
        return nil
    }

    /// Whether `challenge` only says that the nonce of a Digest answer was stale: then the same
    /// credentials answer with the new nonce from now on (the answer is renewed), without asking
    /// the handler again.
    func renewsStaleNonce(for challenge: AuthenticationChallenge) -> Bool {
        guard case .digest(let authorizer)? = challenge.isProxy ? proxy : server,
            let renewed = challenge.staleDigest()
        else { return false }
        authorizer.renew(renewed)
        return true
    }

    private var sources: [(name: String, source: Source)] {
        var sources: [(String, Source)] = []
        if let server { sources.append(("Authorization", server)) }
        if let proxy { sources.append(("Proxy-Authorization", proxy)) }
        return sources
    }

    /// The value of `source` for `request`: a Digest answer for its method and its target as
    /// the transports send it (path and query; a proxy's Digest is not answered for a tunnel).
    private static func value(of source: Source, for request: URLRequest) -> String {
        switch source {
        case .value(let value):
            return value
        case .digest(let authorizer):
            return authorizer.value(method: request.httpMethod ?? "GET", uri: requestTarget(of: request.url))
        }
    }

    /// The request-target of a request to `url` in origin form, as libcurl and URLSession send
    /// it: the path (`/` when empty) and the query, percent-encoded as in the URL.
    static func requestTarget(of url: URL?) -> String {
        guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
