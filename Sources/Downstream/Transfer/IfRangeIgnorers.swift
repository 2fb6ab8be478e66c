import Foundation

/// The servers that answered a range guarded by `If-Range` with their whole file, though it was
/// the same version (the same strong `ETag` and length): some CDNs do this whatever `If-Range`
/// says, and would send the whole file again on every resume. A manager's transfers share one,
/// for the manager's life: to those servers a continuation asks with `Range` alone, and the
/// overlap before the resume point is what proves the file is the same (a `206` with another
/// validator or length is refused too).
///
/// A server is its URL's scheme, host and port: the URL asked for, before redirects (the request
/// that follows a redirect keeps the headers of the one it follows).
final class IfRangeIgnorers: Sendable {
    private let servers = Locked<Set<String>>([])

    init() {}

    /// Remembers the server of `url`.
    func remember(_ url: URL) {
        guard let key = Self.key(of: url) else { return }
        _ = servers.withLock { $0.insert(key) }
    }

    /// Whether the server of `url` answered `If-Range` with its whole file before.
    func contains(_ url: URL) -> Bool {
        guard let key = Self.key(of: url) else { return false }
        return servers.withLock { $0.contains(key) }
    }

    /// `scheme://host:port`, lowercased, with the scheme's port when the URL names none.
    static func key(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }
}
