import Foundation

/// A proxy that a manager's requests go through
/// (``DownloadManager/Configuration-swift.struct/Network-swift.struct/proxy``): HTTP (HTTPS
/// URLs through a `CONNECT` tunnel), HTTPS (TLS to the proxy itself) or SOCKS5 (the proxy
/// resolves host names), with credentials and hosts reached directly.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// How requests reach the proxy.
    public enum Kind: String, Sendable, Hashable {
        case http
        case https
        case socks5
    }

    public var kind: Kind
    public var host: String
    public var port: Int
    /// The proxy's credentials (sent as `Proxy-Authorization: Basic`); nil for none. Without
    /// them, a `407` reaches your authentication handler as a proxy challenge.
    public var user: String?
    public var password: String?
    /// Hosts reached directly, not through the proxy: a name (`intranet`), a domain with its
    /// subdomains (`example.com`, `.example.com` or `*.example.com`), or `*` for every host.
    public var bypassedHosts: [String]

    /// A proxy at `host`:`port`.
    public init(
        _ kind: Kind, host: String, port: Int, user: String? = nil, password: String? = nil,
        bypassedHosts: [String] = []
    ) {
        self.kind = kind
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.bypassedHosts = bypassedHosts
    }

    /// A proxy from its URL, as curl's `--proxy` and the `https_proxy` variable give it:
    /// `http://proxy:3128`, `https://user:password@proxy:443`, `socks5://127.0.0.1:1080` (a missing
    /// port is the scheme's: 80, 443, 1080). Nil for another scheme or no host.
    public init?(url: URL, bypassedHosts: [String] = []) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return nil }
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "https": kind = .https
        case "socks5", "socks5h": kind = .socks5
        default: return nil
        }
        let defaultPort = [Kind.http: 80, .https: 443, .socks5: 1080][kind] ?? 80
        self.init(
            kind, host: host, port: url.port ?? defaultPort, user: url.user?.removingPercentEncoding,
            password: url.password?.removingPercentEncoding, bypassedHosts: bypassedHosts)
    }

    /// The proxy as libcurl names it (`socks5h://` for SOCKS5: the proxy resolves names).
    var curlURL: String {
        let scheme = kind == .socks5 ? "socks5h" : kind.rawValue
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shown):\(port)"
    }

    /// ``bypassedHosts`` as libcurl's `NOPROXY` list.
    var curlNoProxy: String {
        bypassedHosts.map { $0.hasPrefix("*.") ? String($0.dropFirst()) : $0 }.joined(separator: ",")
    }

    /// The proxy as URLSession's `connectionProxyDictionary` (the keys of CFNetwork's
    /// `kCFNetworkProxies…` constants): HTTP and HTTPS requests through an HTTP proxy, or every
    /// connection through SOCKS, with the hosts reached directly.
    var connectionProxyDictionary: [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = ["ExceptionsList": bypassedHosts]
        switch kind {
        case .http, .https:
            for prefix in ["HTTP", "HTTPS"] {
                dictionary["\(prefix)Enable"] = 1
                dictionary["\(prefix)Proxy"] = host
                dictionary["\(prefix)Port"] = port
            }
        case .socks5:
            dictionary["SOCKSEnable"] = 1
            dictionary["SOCKSProxy"] = host
            dictionary["SOCKSPort"] = port
        }
        return dictionary
    }

    /// The proxy without its credentials.
    public var description: String { curlURL.replacingOccurrences(of: "socks5h://", with: "socks5://") }
}
