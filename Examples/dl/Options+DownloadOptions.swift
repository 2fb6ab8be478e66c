import Downstream

extension Options {
    /// The options of the *Downloads* section: how files are downloaded.
    static let downloadOptions: [OptionSpec<Options>] = [
        OptionSpec(
            names: ["-j", "--max-concurrent-downloads", "--parallel-max"],
            action: .value("N") { options, value throws(UsageError) in
                options.maximumConcurrentDownloads = try UsageError.positiveInteger(value, for: "-j")
            },
            section: "Downloads", help: "download at most N files at once (default: 4)"),
        OptionSpec(
            names: ["--max-connection-per-server"],
            action: .value("N") { options, value throws(UsageError) in
                try options.setConnections(value, by: "--max-connection-per-server")
            },
            section: "Downloads",
            help: "download each file over up to N connections at once (default: 1; at most 16): the"
                + " rest after its first 4 MiB is split when the server answers ranges with a validator;"
                + " every connection takes one of the -j x N slots"),
        OptionSpec(
            names: ["-x"],
            action: .value("N|PROXY") { options, value throws(UsageError) in
                // aria2's -x takes a number; curl's, a proxy (a number alone is never one).
                if Options.isWholeNumber(value) {
                    try options.setConnections(value, by: "-x")
                } else {
                    options.proxy = value
                    options.proxyOption = "-x"
                }
            },
            section: "Downloads",
            help: "a whole number: --max-connection-per-server N (aria2's -x); anything else: --proxy PROXY"
                + " (curl's -x: -x http://proxy:3128, -x proxy:3128)"),
        OptionSpec(
            names: ["--split"],
            action: .value("N") { options, value throws(UsageError) in
                try options.setConnections(value, by: "--split")
            },
            section: "Downloads", help: "the same as --max-connection-per-server (aria2's name; -s N too)"),
        OptionSpec(
            names: ["--limit-rate"],
            action: .value("RATE") { options, value throws(UsageError) in
                options.limitRate = try Options.rate(value, for: "--limit-rate")
            },
            section: "Downloads",
            help: "receive at most RATE bytes per second, all downloads together (k: 1024, M: 1048576,"
                + " G: 1073741824; e.g. 500k, 1.5M, 1G)"),
        OptionSpec(
            names: ["--compressed"], action: .flag { $0.acceptsCompressedBodies = true }, section: "Downloads",
            help: "ask for the body compressed (gzip, deflate) and save it decoded, as curl's --compressed;"
                + " without it, a server that compresses the body anyway is refused, before a byte is written"),
        OptionSpec(
            names: ["--max-filesize"],
            action: .value("SIZE") { options, value throws(UsageError) in
                options.maximumFileSize = Int64(try Options.rate(value, for: "--max-filesize", unit: "bytes"))
            },
            section: "Downloads",
            help: "fail a file larger than SIZE bytes (k, M, G as for --limit-rate): refused before its first"
                + " byte when its length is known, else stopped at SIZE (a decoded or chunked body)"),
        digestOption("--sha256", .sha256, help: "the file's expected SHA-256; a mismatch fails it (one URL only)"),
        digestOption("--sha512", .sha512, help: "the file's expected SHA-512 (one URL only)"),
        digestOption("--sha384", .sha384, help: "the file's expected SHA-384 (one URL only)"),
        digestOption("--sha1", .sha1, help: "the file's expected SHA-1 (one URL only)"),
        digestOption("--md5", .md5, help: "the file's expected MD5 (one URL only)"),
        OptionSpec(
            names: ["--mirror"], action: .value("URL") { $0.mirrors.append($1) }, section: "Downloads",
            help: "another URL of the same file, tried when the URL fails (repeatable; one URL only)"),
        OptionSpec(
            names: ["-L", "--location"], action: .flag { _ in }, section: "Downloads",
            help: "follow redirects (always on: accepted for habit)"),
        OptionSpec(
            names: ["-f", "--fail"], action: .flag { _ in }, section: "Downloads",
            help: "fail on an HTTP error (always: dl never saves an error page as the file; accepted for habit)"),
        OptionSpec(
            names: ["-Z", "--parallel"], action: .flag { _ in }, section: "Downloads",
            help: "download the files at once (always, up to -j: accepted for habit)"),
        OptionSpec(
            names: ["-H", "--header"],
            action: .value("'NAME: VALUE'") { options, value throws(UsageError) in
                options.headers.append(try Header(value))
            },
            section: "Downloads", help: "send the header NAME: VALUE with every request (repeatable)"),
        OptionSpec(
            names: ["-u", "--user"],
            action: .value("USER[:PASSWORD]") { options, value throws(UsageError) in
                options.credentials = try Credentials(value)
            },
            section: "Downloads",
            help: "answer a server that asks for credentials (401) with these, only the hosts of the"
                + " URLs given; without :PASSWORD, dl asks for it on the terminal"),
        OptionSpec(
            names: ["-t", "--tries"],
            action: .value("N") { options, value throws(UsageError) in
                guard let tries = Int(value), tries >= 0 else {
                    throw .invalidValue(option: "-t", value: value, expected: "a whole number, 0 for no limit")
                }
                options.tries = tries
            },
            section: "Downloads",
            help: "try each file N times in all before it fails (0: no limit; default 4: the first and 3 more)"),
        OptionSpec(
            names: ["--retry"],
            action: .value("N") { options, value throws(UsageError) in
                // curl counts the retries, dl's -t the tries: --retry 3 is -t 4.
                guard let retries = Int(value), retries >= 0, retries < Int.max else {
                    throw .invalidValue(option: "--retry", value: value, expected: "a whole number of retries")
                }
                options.tries = retries + 1
            },
            section: "Downloads", help: "retry each file N times after its first try (--retry 3 is -t 4)"),
        OptionSpec(
            names: ["--retry-wait", "--retry-delay"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                options.retryWait = try Options.seconds(value, for: "--retry-wait")
            },
            section: "Downloads",
            help: "wait SECONDS before the first retry, twice as long before each next (default: 1);"
                + " --retry-delay is curl's name (curl waits the same each time)"),
        OptionSpec(
            names: ["-T", "--timeout"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                options.timeout = try Options.seconds(value, for: "-T")
            },
            section: "Downloads", help: "give a request up when no byte comes for SECONDS (default: 60)"),
        OptionSpec(
            names: ["--connect-timeout"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                options.connectionTimeout = try Options.seconds(value, for: "--connect-timeout")
            },
            section: "Downloads", help: "give connecting up after SECONDS (default: as -T)"),
        OptionSpec(
            names: ["-m", "--max-time"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                options.maximumTime = try Options.seconds(value, for: "-m")
            },
            section: "Downloads",
            help: "fail a file not finished SECONDS after it started (each file its own; curl's -m): its"
                + " bytes are kept, the same command continues"),
        OptionSpec(
            names: ["-4", "--inet4-only"], action: .flag { $0.addressFamily = .ipv4 }, section: "Downloads",
            help: "connect to IPv4 addresses only"),
        OptionSpec(
            names: ["-6", "--inet6-only"], action: .flag { $0.addressFamily = .ipv6 }, section: "Downloads",
            help: "connect to IPv6 addresses only"),
        OptionSpec(
            names: ["--checksum"],
            action: .value("TYPE=HEX") { options, value throws(UsageError) in
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let algorithm = InputFile.algorithms[parts[0].lowercased()] else {
                    throw .invalidValue(
                        option: "--checksum", value: value,
                        expected: "TYPE=HEX, TYPE one of sha-512, sha-384, sha-256, sha-1, md5")
                }
                try options.setDigest(algorithm, parts[1], by: "--checksum")
            },
            section: "Downloads",
            help:
                "the file's expected digest, aria2's form (sha-256=HEX, sha-512=, sha-384=, sha-1=, md5=; one URL only)"
        ),
        OptionSpec(
            names: ["-U", "--user-agent"], action: .value("AGENT") { $0.userAgent = $1 }, section: "Downloads",
            help: "send AGENT as the User-Agent (default: '\(Help.userAgent)')"),
    ]
}
