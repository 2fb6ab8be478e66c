import Downstream
import Foundation

/// What the command line asks for, as it was written: ``Plan`` checks it and turns it into jobs.
struct Options: Equatable {
    /// What `dl` prints.
    enum Mode: Equatable {
        /// Live bars on a terminal, plain lines otherwise.
        case automatic
        /// Nothing on success; failures on standard error.
        case quiet
        /// One line per file, saved or failed, and no progress (wget's `-nv`).
        case brief
        /// Lines as in a pipe, with every request and response head on standard error (curl's
        /// and wget's `-v`).
        case verbose
        /// One JSON object per line on standard output.
        case json
    }

    /// What happens when a file to download is at its destination already.
    enum ExistingFiles: String, Equatable {
        /// Fail before downloading, with a message naming the other choices.
        case fail
        /// Keep it and download nothing (wget's `--no-clobber`).
        case keep
        /// Download again only if the server's file changed (wget's `--timestamping`).
        case replaceIfChanged
        /// Replace it.
        case overwrite
        /// Keep it and save the new file beside it as `name (1).ext`.
        case unique

        /// Whether a file an earlier run saved, unchanged, counts as saved: where the file would
        /// otherwise fail, or be saved again beside itself. (`--overwrite` and `-N` ask for the
        /// server's file again; `--no-clobber` keeps any file.)
        var trustsEarlierRuns: Bool {
            self == .fail || self == .unique
        }

        var conflictPolicy: Destination.ConflictPolicy {
            switch self {
            case .fail: .fail
            case .keep: .useExisting
            case .replaceIfChanged: .replaceIfChanged
            case .overwrite: .replace
            case .unique: .uniqueName
            }
        }
    }

    var urls: [String] = []
    var inputFiles: [String] = []
    var outputDirectory: String?
    var outputDocument: String?
    /// `-o`: the file of the one URL, as curl and aria2 read it; a folder when it is one (it
    /// exists, or ends with `/`) or when there are several URLs (see ``Plan``).
    var output: String?
    var maximumConcurrentDownloads: Int?
    /// The most bytes per second all downloads may receive together; nil for no limit.
    var limitRate: Int?
    /// How many connections one file may come over.
    var connections: Int?
    /// `--compressed`: a server may send a body compressed; it is saved decoded.
    var acceptsCompressedBodies = false
    /// `--max-filesize`: the most bytes a file may have.
    var maximumFileSize: Int64?
    var digest: Digest?
    var mirrors: [String] = []
    /// The `User-Agent` to send; nil for dl's own (``Help/userAgent``).
    var userAgent: String?
    /// Headers every request sends (`-H`), in order.
    var headers: [Header] = []
    /// `-u`: what to answer a server that asks for credentials with.
    var credentials: Credentials?
    /// `--content-disposition`: a file without a name of the user's is named as the server says.
    var usesServerNames = false
    /// `--cacert`: certificate authorities trusted besides the system's, for every host.
    var authorities: [String] = []
    /// `--pinnedpubkey`: the public keys every server may have.
    var pins: [PublicKeyPin] = []
    /// `-k`: certificates are not checked.
    var checksCertificates = true
    /// `--cert FILE[:PASSWORD]` and `--key FILE`: the client certificate shown to servers that ask.
    var clientCertificate: String?
    var clientKey: String?
    /// `--proxy`: the proxy's URL.
    var proxy: String?
    /// `--no-proxy`: hosts reached directly.
    var bypassedHosts: [String] = []
    /// How many times a file is tried in all (`-t`, wget's count: 0 for no limit); nil for dl's
    /// default.
    var tries: Int?
    /// The wait before the first retry (`--retry-wait`); nil for the default.
    var retryWait: Duration?
    /// How long a request may wait for bytes (`-T`); nil for the default.
    var timeout: Duration?
    /// How long connecting may take (`--connect-timeout`); nil for the request's timeout.
    var connectionTimeout: Duration?
    /// `-4`, `-6`: the addresses of a host to connect to.
    var addressFamily = AddressFamily.any
    var existingFiles = ExistingFiles.fail
    var mode = Mode.automatic
    /// How often plain and JSON output print progress; nil for the default.
    var progressInterval: Duration?
    var showsHelp = false
    var showsVersion = false

    /// The option that chose ``existingFiles``, for the error when another one disagrees.
    private var existingFilesOption: String?
    /// The option that chose ``mode``.
    private var modeOption: String?

    /// The options `dl` knows, in the order `--help` shows them.
    static let table: [OptionSpec<Options>] = [
        OptionSpec(
            names: ["-i", "--input-file"], action: .value("FILE") { $0.inputFiles.append($1) }, section: "Input",
            help: "read URLs from FILE, one a line ('-' for standard input); blank lines and lines"
                + " starting with '#' are skipped; indented lines after a URL set its options:"
                + " 'out=NAME', 'checksum=sha-256=HEX' (or sha-512, sha-384, sha-1, md5), 'mirror=URL'"),
        OptionSpec(
            names: ["-o", "--output"], action: .value("PATH") { $0.output = $1 }, section: "Files",
            help: "with one URL, save it as the file PATH (curl's and aria2's -o), unless PATH is a folder"
                + " (it exists, or ends with '/'); with several URLs or -i, save them in the folder PATH"),
        OptionSpec(
            names: ["-d", "--dir", "--output-dir"], action: .value("DIR") { $0.outputDirectory = $1 },
            section: "Files", help: "save files in DIR (default: the current directory), named after their URLs"),
        OptionSpec(
            names: ["-P", "--directory-prefix"], action: .value("DIR") { $0.outputDirectory = $1 },
            section: "Files", help: "the same as --dir (wget's name)"),
        OptionSpec(
            names: ["-O", "--output-document"],
            action: .value("FILE") { options, value throws(UsageError) in
                // curl's -O takes no value: it saves under the URL's name. A URL here is that habit.
                if (try? Entry.url(value)) != nil {
                    options.urls.append(value)
                } else {
                    options.outputDocument = value
                }
            },
            section: "Files",
            help: "save the one URL as FILE (wget's -O; relative to --dir when both are given); - writes it"
                + " to standard output once it is complete and checked (kept in dl's store until then, so the"
                + " same command continues it); followed by a URL, curl's -O: save it under its own name"),
        OptionSpec(
            names: ["--content-disposition"], action: .flag { $0.usesServerNames = true }, section: "Files",
            help: "name each file as the server's Content-Disposition says (made safe: no folders, no hidden"
                + " or reserved names), else after its URL; -O and out= names stay"),
        OptionSpec(
            names: ["-c", "--continue"], action: .flag { _ in }, section: "Files",
            help: "continue partial downloads from the bytes kept (always on: accepted for habit)"),
        OptionSpec(
            names: ["-C", "--continue-at"],
            action: .value("-") { _, value throws(UsageError) in
                guard value == "-" else {
                    throw .invalidValue(
                        option: "-C", value: value, expected: "'-' (dl always continues from the bytes it kept)")
                }
            },
            section: "Files", help: "curl's '-C -': continue from the bytes kept (always on: accepted for habit)"),
        OptionSpec(
            names: ["-nc", "--no-clobber"],
            action: .flag { options throws(UsageError) in try options.setExistingFiles(.keep, by: "--no-clobber") },
            section: "Files", help: "keep a file that exists and download nothing for it"),
        OptionSpec(
            names: ["-N", "--timestamping"],
            action: .flag { options throws(UsageError) in
                try options.setExistingFiles(.replaceIfChanged, by: "--timestamping")
            },
            section: "Files", help: "download a file that exists again only if it changed on the server"),
        OptionSpec(
            names: ["--overwrite"],
            action: .flag { options throws(UsageError) in try options.setExistingFiles(.overwrite, by: "--overwrite") },
            section: "Files", help: "replace a file that exists"),
        OptionSpec(
            names: ["--unique"],
            action: .flag { options throws(UsageError) in try options.setExistingFiles(.unique, by: "--unique") },
            section: "Files", help: "keep a file that exists and save the new one as 'name (1).ext'"),
        OptionSpec(
            names: ["-j", "--max-concurrent-downloads"],
            action: .value("N") { options, value throws(UsageError) in
                options.maximumConcurrentDownloads = try UsageError.positiveInteger(value, for: "-j")
            },
            section: "Downloads", help: "download at most N files at once (default: 4)"),
        OptionSpec(
            names: ["-x", "--max-connection-per-server"],
            action: .value("N") { options, value throws(UsageError) in
                try options.setConnections(value, by: "-x")
            },
            section: "Downloads",
            help: "download each file over up to N connections at once (default: 1; at most 16): the"
                + " rest after its first 4 MiB is split when the server answers ranges with a validator;"
                + " every connection takes one of the -j x N slots"),
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
            names: ["-s", "--split"],
            action: .value("N") { options, value throws(UsageError) in
                try options.setConnections(value, by: "-s")
            },
            section: "Downloads", help: "the same as -x (aria2's name)"),
        OptionSpec(
            names: ["-L", "--location"], action: .flag { _ in }, section: "Downloads",
            help: "follow redirects (always on: accepted for habit)"),
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
            names: ["--retry-wait"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                options.retryWait = try Options.seconds(value, for: "--retry-wait")
            },
            section: "Downloads",
            help: "wait SECONDS before the first retry, twice as long before each next (default: 1)"),
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
            names: ["--proxy"], action: .value("URL") { $0.proxy = $1 }, section: "Security",
            help: "go through the proxy at URL (http://, https://, socks5://, with user:password@ if it asks;"
                + " default: the https_proxy, http_proxy and all_proxy variables)"),
        OptionSpec(
            names: ["--no-proxy"],
            action: .value("HOST[,HOST...]") { options, value in
                options.bypassedHosts += value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            },
            section: "Security", help: "reach these hosts directly (names, .domain, or * for all)"),
        OptionSpec(
            names: ["-q", "--quiet"],
            action: .flag { options throws(UsageError) in try options.setMode(.quiet, by: "--quiet") },
            section: "Output", help: "print nothing but failures (on standard error)"),
        OptionSpec(
            names: ["-nv", "--no-verbose"],
            action: .flag { options throws(UsageError) in try options.setMode(.brief, by: "--no-verbose") },
            section: "Output", help: "print one line per file, saved or failed, and no progress (wget's -nv)"),
        OptionSpec(
            names: ["-v", "--verbose"],
            action: .flag { options throws(UsageError) in try options.setMode(.verbose, by: "--verbose") },
            section: "Output",
            help: "print a line per event, and each request and response head on standard error"
                + " (credentials hidden)"),
        OptionSpec(
            names: ["--json"],
            action: .flag { options throws(UsageError) in try options.setMode(.json, by: "--json") },
            section: "Output", help: "print one JSON object a line, for scripts (see the README)"),
        OptionSpec(
            names: ["--progress-interval"],
            action: .value("SECONDS") { options, value throws(UsageError) in
                guard let seconds = Double(value), seconds >= 0, seconds <= 86_400 else {
                    throw .invalidValue(
                        option: "--progress-interval", value: value, expected: "seconds, from 0 to 86400")
                }
                options.progressInterval = .milliseconds(Int64((seconds * 1000).rounded()))
            },
            section: "Output",
            help: "print progress lines every SECONDS when not on a terminal (default: 5; --json: 1;"
                + " 0: at every change)"),
        OptionSpec(
            names: ["-h", "--help"], action: .flag { $0.showsHelp = true }, section: "Output", help: "show this help"),
        OptionSpec(
            names: ["-V", "--version"], action: .flag { $0.showsVersion = true }, section: "Output",
            help: "show dl's version"),
    ]

    static let parser = ArgumentParser(table, unsupported: unsupported)

    /// Options of wget, curl and aria2 that dl does not have, each with what to use instead.
    static let unsupported: [String: String] = [
        "--ftp-user": "dl downloads over HTTP and HTTPS only",
        "-r": "dl downloads the URLs it is given: list many in a file, one a line, and give it with -i FILE",
        "--recursive": "dl downloads the URLs it is given: list many in a file, one a line, and give it with -i FILE",
        "-b": "run dl in the background with your shell (dl URL &); the same command continues after a stop",
        "--background": "run dl in the background with your shell (dl URL &); the same command continues after a stop",
        "--spider": "dl always downloads; ask the server with curl -I",
    ]

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        try parser.parse(arguments, into: &options) { options, url throws(UsageError) in
            options.urls.append(url)
        }
        return options
    }

    /// `value` as bytes per second: digits, with an optional `k`/`K` (1024) or `m`/`M`
    /// (1048576) suffix, as wget's and curl's `--limit-rate` take it.
    static func rate(_ value: String, for option: String, unit: String = "bytes per second") throws(UsageError) -> Int {
        let expected = "\(unit), at least 1, with an optional k, M or G suffix (500k, 2M, 1.5M, 1G)"
        var digits = Substring(value)
        var multiplier = 1.0
        switch digits.last {
        case "k", "K": multiplier = 1024
        case "m", "M": multiplier = 1024 * 1024
        case "g", "G": multiplier = 1024 * 1024 * 1024
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let number = Double(digits), number.isFinite
        else { throw .invalidValue(option: option, value: value, expected: expected) }
        let rate = (number * multiplier).rounded()
        guard rate >= 1, rate < Double(Int.max / 2) else {
            throw .invalidValue(option: option, value: value, expected: expected)
        }
        return Int(rate)
    }

    private mutating func setConnections(_ value: String, by option: String) throws(UsageError) {
        let connections = try UsageError.positiveInteger(value, for: option)
        guard connections <= Plan.maximumConnections else {
            throw .invalidValue(
                option: option, value: value, expected: "a whole number from 1 to \(Plan.maximumConnections)")
        }
        self.connections = connections
    }

    /// `value` as seconds (fractions allowed), from 0.1 to a day.
    static func seconds(_ value: String, for option: String) throws(UsageError) -> Duration {
        guard let seconds = Double(value), seconds >= 0.1, seconds <= 86_400 else {
            throw .invalidValue(option: option, value: value, expected: "seconds, from 0.1 to 86400")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private mutating func setExistingFiles(_ choice: ExistingFiles, by option: String) throws(UsageError) {
        if let earlier = existingFilesOption, existingFiles != choice {
            throw .other("\(earlier) and \(option) cannot be used together")
        }
        existingFiles = choice
        existingFilesOption = option
    }

    private mutating func setMode(_ choice: Mode, by option: String) throws(UsageError) {
        if let earlier = modeOption, mode != choice {
            throw .other("\(earlier) and \(option) cannot be used together")
        }
        mode = choice
        modeOption = option
    }

    /// `name HEX`: the expected digest of `algorithm`.
    private static func digestOption(_ name: String, _ algorithm: Digest.Algorithm, help: String) -> OptionSpec<Options>
    {
        OptionSpec(
            names: [name],
            action: .value("HEX") { options, value throws(UsageError) in
                try options.setDigest(algorithm, value, by: name)
            },
            section: "Downloads", help: help)
    }

    private mutating func setDigest(_ algorithm: Digest.Algorithm, _ hex: String, by option: String) throws(UsageError)
    {
        let digest = try Digest.parse(algorithm, hex, for: option)
        if let earlier = self.digest, earlier != digest {
            throw .other("give one expected digest, not \(earlier.algorithm) and \(digest.algorithm) (\(option))")
        }
        self.digest = digest
    }
}

extension Digest {
    /// `hex` as a digest of `algorithm`: as many hexadecimal digits as the algorithm has.
    static func parse(_ algorithm: Algorithm, _ hex: String, for option: String) throws(UsageError) -> Digest {
        let digits = algorithm.byteCount * 2
        guard hex.count == digits, hex.allSatisfy(\.isHexDigit) else {
            throw .invalidValue(option: option, value: hex, expected: "\(digits) hexadecimal digits (\(algorithm))")
        }
        return Digest(algorithm, hex: hex)
    }
}
