import Foundation

/// Whom downloads trust, host by host (``DownloadManager/Configuration-swift.struct/trust``):
/// certificate authorities of your own (a private CA), public-key pins, and, for local
/// development only, a host whose certificate is not checked at all.
///
/// A request uses the rule of its URL's host: an exact rule first, else the longest `*.` rule
/// that matches, else the `*` rule; without one it trusts what the platform trusts. A redirect's
/// request, and every connection of a file over several, use the rule of their own host. A
/// refused certificate fails the download with ``DownloadError/Kind/serverTrustFailed`` (the
/// reason names the host and the rule) and keeps the bytes received.
///
/// On Linux the usual environment variables for a CA bundle are honoured for hosts without a
/// rule of their own authorities: `CURL_CA_BUNDLE` or `SSL_CERT_FILE` (a bundle file),
/// `SSL_CERT_DIR` (a directory of hashed certificates).
///
/// libcurl honours every rule (but keychain identities), and URLSession on Apple platforms
/// checks rules in its challenges; URLSession on Linux cannot, and a request whose host has a
/// rule fails there with ``DownloadError/Kind/invalidRequest`` naming it, instead of being sent
/// with less checking than you asked for. The article <doc:TrustingServers> has the details.
public struct TrustSettings: Sendable {
    /// The rules, one per host pattern; see ``rule(for:)``.
    public var rules: [TrustRule] = []

    /// No rule: downloads trust what the platform trusts.
    public init() {}

    /// The rule of `host`: an exact one, else the longest matching `*.` one, else `*`.
    public func rule(for host: String) -> TrustRule? {
        let host = host.lowercased()
        if let exact = rules.first(where: { $0.host == host }) { return exact }
        let wildcards = rules.filter { $0.host.hasPrefix("*.") && host.hasSuffix($0.host.dropFirst()) }
        if let longest = wildcards.max(by: { $0.host.count < $1.host.count }) { return longest }
        return rules.first { $0.host == "*" }
    }
}

/// What one host (or hosts: `*.example.com`, or `*` for any) is trusted with.
public struct TrustRule: Sendable, Hashable {
    /// `example.com`, `*.example.com` (its subdomains, not itself) or `*`; lowercased.
    public let host: String
    /// Certificate authorities trusted for the host, PEM or DER: in addition to the platform's,
    /// or instead of them with ``trustsOnlyAdditionalAuthorities``.
    public var additionalAuthorities: [Certificate] = []
    /// Whether only ``additionalAuthorities`` are trusted, not the platform's.
    public var trustsOnlyAdditionalAuthorities = false
    /// The public keys the host's certificate may have (any one of them: give the next key
    /// before you rotate to it). Empty: any key the authorities vouch for.
    public var publicKeyPins: [PublicKeyPin] = []
    /// The certificate and key this client shows a host that asks for one (mutual TLS); nil
    /// for none.
    public var clientIdentity: ClientIdentity?
    /// Whether the host's certificate is not checked at all. Only through
    /// ``acceptingAnyCertificate(forHost:)``.
    public private(set) var acceptsAnyCertificate = false

    /// A rule for `host` (`example.com`, `*.example.com` or `*`).
    public init(
        host: String, additionalAuthorities: [Certificate] = [], trustsOnlyAdditionalAuthorities: Bool = false,
        publicKeyPins: [PublicKeyPin] = [], clientIdentity: ClientIdentity? = nil
    ) {
        self.host = host.lowercased()
        self.additionalAuthorities = additionalAuthorities
        self.trustsOnlyAdditionalAuthorities = trustsOnlyAdditionalAuthorities
        self.publicKeyPins = publicKeyPins
        self.clientIdentity = clientIdentity
    }

    /// A rule that accepts any certificate of `host`, checked by nobody: for a development
    /// server on your own machine only, never in a release. Event monitors hear of every
    /// request that uses it (``DownloadEventMonitor/download(_:acceptsAnyCertificateOf:)``).
    public static func acceptingAnyCertificate(forHost host: String) -> TrustRule {
        var rule = TrustRule(host: host)
        rule.acceptsAnyCertificate = true
        return rule
    }

    /// The rule in words, for errors: `"rule for *.example.com (2 pins)"`.
    var summary: String {
        var parts: [String] = []
        if !additionalAuthorities.isEmpty {
            parts.append(
                "\(additionalAuthorities.count) authorit\(additionalAuthorities.count == 1 ? "y" : "ies")"
                    + (trustsOnlyAdditionalAuthorities ? " only" : ""))
        }
        if !publicKeyPins.isEmpty {
            parts.append("\(publicKeyPins.count) pin\(publicKeyPins.count == 1 ? "" : "s")")
        }
        if clientIdentity != nil {
            parts.append("a client certificate")
        }
        return "rule for \(host)" + (parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))")
    }
}

/// A certificate, as PEM text or DER bytes, given as data or as a file.
public struct Certificate: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case data(Data)
        case file(URL)
    }

    let source: Source

    /// A certificate (or several, PEM) in `data`, PEM or DER.
    public static func data(_ data: Data) -> Certificate {
        Certificate(source: .data(data))
    }

    /// The certificate (or several, PEM) in the file at `url`, PEM or DER.
    public static func file(_ url: URL) -> Certificate {
        Certificate(source: .file(url))
    }

    /// The certificate as PEM text; a typed error when it cannot be read or is neither PEM nor
    /// DER.
    func pem() throws(DownloadError) -> String {
        let data: Data
        switch source {
        case .data(let bytes):
            data = bytes
        case .file(let url):
            guard let bytes = FileManager.default.contents(atPath: url.path) else {
                throw .invalidRequest("the certificate file \(url.path) cannot be read")
            }
            data = bytes
        }
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") {
            return text.hasSuffix("\n") ? text : text + "\n"
        }
        // DER: one certificate, a SEQUENCE.
        guard data.first == 0x30 else {
            throw .invalidRequest("a certificate is neither PEM nor DER")
        }
        let body = data.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }
}

/// The SHA-256 of a certificate's public key (its DER SubjectPublicKeyInfo), as curl's
/// `--pinnedpubkey sha256//…` and HPKP give it.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the digest, base64.
    public let base64: String

    /// A pin from the base64 of a SHA-256 digest (with or without curl's `sha256//` prefix); nil
    /// when it is not 32 bytes of base64.
    public init?(sha256Base64 text: String) {
        let value = text.hasPrefix("sha256//") ? String(text.dropFirst(8)) : text
        guard let bytes = Data(base64Encoded: value), bytes.count == 32 else { return nil }
        base64 = value
    }

    public var description: String { "sha256//\(base64)" }
}

/// What a server's certificate is answered with, by its host's rule.
enum ServerTrustVerdict: Equatable, Sendable {
    case trusted
    /// Refused, with why: the host, what failed and the rule.
    case refused(String)
}

extension TrustRule {
    /// The verdict on `host`'s certificate, from what the platform found: `chainFailure` (nil
    /// when the chain is trusted, with the rule's authorities) and the pin of the certificate's
    /// key (nil when it cannot be read). Pins are checked against the server's own certificate,
    /// as curl checks them.
    func verdict(host: String, chainFailure: String?, leafPin: PublicKeyPin?) -> ServerTrustVerdict {
        if acceptsAnyCertificate { return .trusted }
        if let chainFailure {
            return .refused("the certificate of \(host) is not trusted: \(chainFailure) (\(summary))")
        }
        guard !publicKeyPins.isEmpty else { return .trusted }
        guard let leafPin else {
            return .refused("the public key of \(host)'s certificate cannot be read to check its pins (\(summary))")
        }
        guard publicKeyPins.contains(leafPin) else {
            return .refused("the public key of \(host)'s certificate (\(leafPin)) matches no pin (\(summary))")
        }
        return .trusted
    }
}
