extension DownloadManager.Configuration.Network {
    /// The settings of these, and the trust rule of `host`, that `transport` cannot apply, in
    /// words; nil when it applies all that the request needs.
    func unappliedSettings(on transport: any Transport, host: String?, trust: TrustSettings) -> String? {
        var needed: [(ConnectionSetting, String)] = []
        if let host, let rule = trust.rule(for: host) { needed.append((.trustRules, "the trust \(rule.summary)")) }
        if connectionTimeout != nil { needed.append((.connectionTimeout, "network.connectionTimeout")) }
        if let proxy {
            needed.append(
                proxy.kind == .https || proxy.user != nil
                    ? (.proxyOverTLSOrWithCredentials, "network.proxy (an HTTPS proxy, or credentials in it)")
                    : (.proxy, "network.proxy"))
        }
        if addressFamily != .any { needed.append((.addressFamily, "network.addressFamily")) }
        let unapplied = needed.filter { !transport.connectionSettings.contains($0.0) }.map(\.1)
        guard !unapplied.isEmpty else { return nil }
        return "\(unapplied.joined(separator: " and ")) cannot be honoured by the \(transport.name) transport"
            + " (only libcurl has them all); leave them unset, or use libcurl (Linux)"
    }
}
