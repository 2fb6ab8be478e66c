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

        /// The library's policy; `continuing` (`-c`): a file that is there is continued when the
        /// server's file continues it, where it would otherwise fail.
        func conflictPolicy(continuing: Bool) -> Destination.ConflictPolicy {
            switch self {
            case .fail: continuing ? .continueExisting : .fail
            case .keep: .useExisting
            case .replaceIfChanged: .replaceIfChanged
            case .overwrite: .replace
            case .unique: .uniqueName
            }
        }
    }

    /// What an `-o` or a curl's `-O` says about the URL it pairs with.
    enum OutputName: Equatable {
        /// `-o PATH`.
        case path(String)
        /// curl's `-O`: the URL's own name.
        case remote
    }

    var urls: [String] = []
    var inputFiles: [String] = []
    var outputDirectory: String?
    var outputDocument: String?
    /// `-o PATH` and curl's `-O URL`, in order: the names of the URLs, as curl pairs them (see
    /// ``Plan``).
    var outputs: [OutputName] = []
    /// Whether `[1-10]` and `{a,b}` in a URL make several URLs (curl's globbing; `-g` turns it off).
    var globs = true
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
    /// `--proxy` (or curl's `-x`): the proxy's URL.
    var proxy: String?
    /// The option that gave ``proxy``, for its errors.
    var proxyOption = "--proxy"
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
    /// How long each file may take in all (`-m`); nil for no limit.
    var maximumTime: Duration?
    /// `-4`, `-6`: the addresses of a host to connect to.
    var addressFamily = AddressFamily.any
    var existingFiles = ExistingFiles.fail
    /// `-c`, `-C -`: a file another program left where a file goes is continued, when its last
    /// bytes are the server's (see ``ExistingFiles/conflictPolicy(continuing:)``).
    var continuesExistingFiles = false
    var mode = Mode.automatic
    /// How often plain and JSON output print progress; nil for the default.
    var progressInterval: Duration?
    /// `--progress=dot[:STYLE]`: progress as dots; nil for bars (`--progress=bar`, the default).
    var dotStyle: DotStyle?
    var showsHelp = false
    var showsVersion = false
    /// `-S`, `-n`, `--netrc-file`, `-b`, `--cookie-jar`, `--remove-on-error`.
    var http = HTTPSettings()

    /// The option that chose ``existingFiles``, for the error when another one disagrees.
    private var existingFilesOption: String?
    /// The option that chose ``mode``.
    private var modeOption: String?

    /// The options `dl` knows, in the order `--help` shows them.
    static let table: [OptionSpec<Options>] =
        fileOptions + downloadOptions + httpOptions + securityOptions + outputOptions

    static let parser = ArgumentParser(table, unsupported: unsupported)

    /// Options of wget, curl and aria2 that dl does not have, each with what to use instead.
    static let unsupported: [String: String] = [
        "--ftp-user": "dl downloads over HTTP and HTTPS only",
        "-r": "dl downloads the URLs it is given: list many in a file, one a line, and give it with -i FILE",
        "--recursive": "dl downloads the URLs it is given: list many in a file, one a line, and give it with -i FILE",
        "--background": "run dl in the background with your shell (dl URL &); the same command continues after a stop",
        "--spider": "dl -I asks for the response heads (a HEAD request) and downloads nothing",
        "-w": "dl prints no format of yours; --json prints a JSON object a line for scripts",
        "--write-out": "dl prints no format of yours; --json prints a JSON object a line for scripts",
        "--trust-server-names":
            "dl names a file after the URL given, not after a redirect's; --content-disposition names it as"
            + " the server says",
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

    /// Whether `value` is a whole number written in digits alone (`4`, not `+4` or `4x`).
    static func isWholeNumber(_ value: String) -> Bool {
        !value.isEmpty && value.allSatisfy { $0.isASCII && $0.isNumber }
    }

    mutating func setConnections(_ value: String, by option: String) throws(UsageError) {
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

    mutating func setExistingFiles(_ choice: ExistingFiles, by option: String) throws(UsageError) {
        if let earlier = existingFilesOption, existingFiles != choice {
            throw .other("\(earlier) and \(option) cannot be used together")
        }
        existingFiles = choice
        existingFilesOption = option
    }

    mutating func setMode(_ choice: Mode, by option: String) throws(UsageError) {
        if let earlier = modeOption, mode != choice {
            throw .other("\(earlier) and \(option) cannot be used together")
        }
        mode = choice
        modeOption = option
    }

    /// `name HEX`: the expected digest of `algorithm`.
    static func digestOption(_ name: String, _ algorithm: Digest.Algorithm, help: String) -> OptionSpec<Options> {
        OptionSpec(
            names: [name],
            action: .value("HEX") { options, value throws(UsageError) in
                try options.setDigest(algorithm, value, by: name)
            },
            section: "Downloads", help: help)
    }

    mutating func setDigest(_ algorithm: Digest.Algorithm, _ hex: String, by option: String) throws(UsageError) {
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
