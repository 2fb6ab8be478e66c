/// What puts a manager's requests on the wire, as the connection-settings check sees it: a
/// transport of the ranged engine, or the system's session of a background manager.
struct ConnectionEngine: Sendable {
    /// "libcurl 7.88.1", "URLSession", "background session".
    let name: String
    /// The settings it applies.
    let settings: Set<ConnectionSetting>
}

extension DownloadManager.Configuration.Network {
    /// The settings of these, and of the trust rule of `host`, that one of `engines` cannot
    /// apply, in words; nil when every engine a request may go through applies all it needs.
    func unappliedSettings(
        on engines: [ConnectionEngine], host: @autoclosure () -> String?, trust: TrustSettings
    ) -> String? {
        var needed: [(ConnectionSetting, String)] = []
        // Read only when there are rules: a URL's host is decoded on every read.
        if !trust.rules.isEmpty, let host = host(), let rule = trust.rule(for: host) { needed += rule.neededSettings }
        if connectionTimeout != nil { needed.append((.connectionTimeout, "network.connectionTimeout")) }
        if let proxy {
            needed.append(
                proxy.kind == .https || proxy.user != nil
                    ? (.proxyOverTLSOrWithCredentials, "network.proxy (an HTTPS proxy, or credentials in it)")
                    : (.proxy, "network.proxy"))
        }
        if addressFamily != .any { needed.append((.addressFamily, "network.addressFamily")) }
        for engine in engines {
            var unapplied: [String] = []
            for (setting, words) in needed where !engine.settings.contains(setting) && !unapplied.contains(words) {
                unapplied.append(words)
            }
            guard !unapplied.isEmpty else { continue }
            return "\(unapplied.joined(separator: " and ")) cannot be honoured by the \(engine.name) transport;"
                + " leave \(unapplied.count == 1 ? "it" : "them") unset, or use a transport that has"
                + " \(unapplied.count == 1 ? "it" : "them") (the article Trusting servers lists which has what)"
        }
        return nil
    }
}

extension TrustRule {
    /// The connection settings the rule needs, each in words. What a provided client identity
    /// gives is checked when it is given.
    var neededSettings: [(ConnectionSetting, String)] {
        var needed: [(ConnectionSetting, String)] = []
        if acceptsAnyCertificate {
            needed.append((.acceptingAnyCertificate, "accepting any certificate of \(host) (the trust \(summary))"))
        }
        if !additionalAuthorities.isEmpty {
            needed.append((.trustAuthorities, "the authorities of the trust \(summary)"))
        }
        if !publicKeyPins.isEmpty {
            needed.append((.publicKeyPins, "the pins of the trust \(summary)"))
        }
        if let identity = clientIdentity {
            needed += identity.neededSettings.map { ($0, "the client certificate of the trust \(summary)") }
        }
        return needed
    }
}

extension ClientIdentity {
    /// The connection settings the identity needs.
    var neededSettings: [ConnectionSetting] {
        func data(_ materials: Material...) -> [ConnectionSetting] {
            materials.contains { if case .data = $0 { true } else { false } } ? [.clientIdentityData] : []
        }
        switch format {
        case .pem(let certificate, let key): return [.pemClientIdentity] + data(certificate, key)
        case .pkcs12(let material): return [.pkcs12ClientIdentity] + data(material)
        case .provided: return [.providedClientIdentity]
        #if canImport(Darwin)
            case .keychain: return [.keychainClientIdentity]
        #endif
        }
    }
}
