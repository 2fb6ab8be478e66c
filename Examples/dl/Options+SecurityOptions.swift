import Downstream

extension Options {
    /// The options of the *Security* section: whom servers are trusted by, and proxies.
    static let securityOptions: [OptionSpec<Options>] = [
        OptionSpec(
            names: ["--ca-certificate", "--cacert"], action: .value("FILE") { $0.authorities.append($1) },
            section: "Security",
            help: "also trust the certificate authority in FILE (PEM or DER; repeatable)"),
        OptionSpec(
            names: ["--pinnedpubkey"],
            action: .value("sha256//BASE64[;...]") { options, value throws(UsageError) in
                for text in value.split(separator: ";") {
                    guard let pin = PublicKeyPin(sha256Base64: String(text)) else {
                        throw .invalidValue(
                            option: "--pinnedpubkey", value: value,
                            expected: "sha256//BASE64 of a public key's SHA-256, several separated by ;")
                    }
                    options.pins.append(pin)
                }
            },
            section: "Security",
            help: "accept only servers whose public key has one of these SHA-256 digests (curl's form)"),
        OptionSpec(
            names: ["-k", "--insecure", "--no-check-certificate"], action: .flag { $0.checksCertificates = false },
            section: "Security",
            help: "do not check certificates at all (a warning on every run: for a test server of your own only)"),
        OptionSpec(
            names: ["--certificate", "--cert"], action: .value("FILE[:PASSWORD]") { $0.clientCertificate = $1 },
            section: "Security",
            help: "show servers that ask this client certificate (PEM with --key, or a .p12/.pfx file with its"
                + " password)"),
        OptionSpec(
            names: ["--private-key", "--key"], action: .value("FILE") { $0.clientKey = $1 }, section: "Security",
            help: "the private key of --cert (PEM)"),
        OptionSpec(
            names: ["--proxy"],
            action: .value("URL") { options, value in
                options.proxy = value
                options.proxyOption = "--proxy"
            },
            section: "Security",
            help: "go through the proxy at URL (http://, https://, socks5://, with user:password@ if it asks;"
                + " default: the https_proxy, http_proxy and all_proxy variables)"),
        OptionSpec(
            names: ["--no-proxy"],
            action: .value("HOST[,HOST...]") { options, value in
                options.bypassedHosts += value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            },
            section: "Security", help: "reach these hosts directly (names, .domain, or * for all)"),
    ]
}
