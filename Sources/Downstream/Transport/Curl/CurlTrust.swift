import Foundation

/// The trust rules (``TrustSettings``) as libcurl options, per host: a CA bundle file for each
/// rule with authorities of its own (written once, in the store's `trust` folder: with the
/// platform's bundle unless the rule trusts only its own; held open and checked, see
/// ``HeldFile``), the pins in curl's
/// `sha256//A;sha256//B` form, and whether checking is off. Hosts without a rule of their own
/// authorities get the environment's bundle (`CURL_CA_BUNDLE`, `SSL_CERT_FILE`, `SSL_CERT_DIR`),
/// as the curl tool and OpenSSL's read them.
struct CurlTrust: Sendable {
    /// What one request sets.
    struct Options: Equatable, Sendable {
        var caFile: String?
        var caDirectory: String?
        /// Whether the CA file is all: not also a directory libcurl was built to read.
        var usesOnlyCAFile = false
        var pins: String?
        var verifies = true
        var clientIdentity: ClientIdentity?
        /// The rule, in words, for a refusal's reason.
        var rule: String?
    }

    /// The bundles the system may have, as curl's configure looks for them.
    static let systemBundles = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/usr/share/ssl/certs/ca-bundle.crt",
        "/usr/local/share/certs/ca-root-nss.crt", "/etc/ssl/cert.pem",
    ]

    private let settings: TrustSettings
    private let environment: Options
    /// The bundle file of each rule with authorities, by host pattern: held open, and read by
    /// libcurl through the open file, so that it reads what was written and checked.
    private let bundles: [String: HeldFile]

    /// Writes the bundle of every rule with authorities into `directory`.
    init(_ settings: TrustSettings, directory: URL, environment: [String: String]) throws(DownloadError) {
        self.settings = settings
        var fromEnvironment = Options()
        fromEnvironment.caFile = environment["CURL_CA_BUNDLE"] ?? environment["SSL_CERT_FILE"]
        fromEnvironment.caDirectory = environment["SSL_CERT_DIR"]
        self.environment = fromEnvironment
        var bundles: [String: HeldFile] = [:]
        let rulesWithAuthorities = settings.rules.filter { !$0.additionalAuthorities.isEmpty }
        if !rulesWithAuthorities.isEmpty {
            try FilePlacement.createDirectory(atPath: directory.path)
        }
        for rule in rulesWithAuthorities {
            var text = ""
            if !rule.trustsOnlyAdditionalAuthorities {
                let system = fromEnvironment.caFile ?? Self.systemBundles.first { POSIXFile.length(atPath: $0) != nil }
                if let system, let data = FileManager.default.contents(atPath: system) {
                    text += String(decoding: data, as: UTF8.self) + "\n"
                }
            }
            for certificate in rule.additionalAuthorities {
                text += try certificate.pem()
            }
            let file = directory.appendingPathComponent("\(StableHash.hex(rule.host + "|" + text)).pem")
            let bytes = Data(text.utf8)
            try AtomicFile.write(bytes, to: file, synchronize: false)
            bundles[rule.host] = try HeldFile(path: file.path, holding: bytes)
        }
        self.bundles = bundles
    }

    /// The options of a request to `host`.
    func options(for host: String) -> Options {
        guard let rule = settings.rule(for: host) else { return environment }
        var options = environment
        options.rule = rule.summary
        options.clientIdentity = rule.clientIdentity
        if rule.acceptsAnyCertificate {
            options.verifies = false
            return options
        }
        if let bundle = bundles[rule.host] {
            options.caFile = bundle.path
            options.caDirectory = nil
            options.usesOnlyCAFile = true
        }
        if !rule.publicKeyPins.isEmpty {
            options.pins = rule.publicKeyPins.map(\.description).joined(separator: ";")
        }
        return options
    }
}
