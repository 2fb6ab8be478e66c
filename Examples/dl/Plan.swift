import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One file `dl` downloads.
struct Job: Equatable {
    var url: URL
    var mirrors: [URL] = []
    var digest: Digest?
    /// Where the file goes; with ``namedByServer``, the folder and the URL's name until the
    /// server names it.
    var file: URL
    /// `--content-disposition`: the server's response names the file, in the folder of ``file``.
    var namedByServer = false

    /// The name shown for it.
    var name: String { file.lastPathComponent }
}

/// What a run of `dl` does: the checked command line.
struct Plan: Equatable {
    var jobs: [Job]
    var maximumConcurrentDownloads: Int
    /// The most bytes per second all downloads may receive together; nil for no limit.
    var limitRate: Int?
    /// How many connections one file may come over.
    var connections = 1
    /// Whether a body may come compressed, to be saved decoded.
    var acceptsCompressedBodies = false
    /// The most bytes a file may have; nil for no limit.
    var maximumFileSize: Int64?
    /// The `User-Agent` every request sends.
    var userAgent = Help.userAgent
    /// Headers every request sends.
    var headers: [Header] = []
    /// What to answer a server that asks for credentials with, for the hosts of the jobs' URLs.
    var credentials: Credentials?
    /// `-O -`: the one file's bytes go to standard output as they come (it is downloaded into
    /// dl's store too: a retry continues it, and the same command writes it all again), and
    /// reports go to standard error.
    var writesToStandardOutput = false
    /// `-O PATH` of a device or a named pipe (`/dev/null`): the file standard output is made to
    /// be, written as it comes; nil for standard output itself.
    var standardOutputPath: String?
    /// `-o -` (curl's way to say it): standard output gets the file even when it is a terminal
    /// and the bytes look binary.
    var forcesStandardOutput = false
    /// Retries after a file's first failure; nil for the default (3).
    var maximumRetries: Int?
    /// The wait before the first retry; nil for the default.
    var retryWait: Duration?
    /// How long a request may wait for bytes; nil for the default.
    var timeout: Duration?
    /// `--proxy` and `--no-proxy`; nil for the environment's.
    var proxy: Proxy?
    /// Whom servers are trusted by: `--cacert`, `--pinnedpubkey`, `-k` as one rule for every host.
    var trust: TrustRule?
    /// How long connecting may take; nil for ``timeout``.
    var connectionTimeout: Duration?
    /// How long each file may take from its first request (`-m`); nil for no limit.
    var maximumTime: Duration?
    var addressFamily = AddressFamily.any
    var existingFiles: Options.ExistingFiles
    /// `-c`: files other programs left are continued (see ``Options/continuesExistingFiles``).
    var continuesExistingFiles = false
    var mode: Options.Mode
    /// How often plain and JSON output print progress.
    var progressInterval: Duration?
    /// What `-v` says about how the command line was read (a URL without a scheme is `http://`).
    var notices: [String] = []
    /// `-S`, `-n`, `-b`, `--cookie-jar`, `--remove-on-error`.
    var http = HTTPSettings()
    /// `--progress=dot`: progress as dots (``DotReporter``), on a terminal and a pipe alike.
    var dotStyle: DotStyle?

    static let defaultConcurrentDownloads = 4
    /// The most connections `-x` allows for one file (aria2's limit too).
    static let maximumConnections = 16

    /// The plan for `options`, with the entries read from its input files (`inputs`, in order),
    /// relative paths resolved against `currentDirectory`.
    static func make(
        _ options: Options, inputs: [Entry] = [], currentDirectory: URL
    ) throws(UsageError) -> Plan {
        var options = options
        var entries = try Self.entries(&options, inputs: inputs, currentDirectory: currentDirectory)
        guard !entries.isEmpty else { throw .other("missing URL") }
        try checkOneURLOptions(options, count: entries.count)
        if entries.count == 1 {
            entries[0].digest = entries[0].digest ?? options.digest
            for mirror in options.mirrors {
                entries[0].mirrors.append(try Entry.url(mirror))
                if let notice = Entry.withAssumedScheme(mirror).notice { entries[0].notices.append(notice) }
            }
        }

        // `-O /dev/null`, `-O` a named pipe: written as standard output is, as the bytes come (a
        // rename would put a file in the place of the device or the pipe).
        let standardOutputPath = options.outputDocument.flatMap { document in
            streamPath(document, in: options.outputDirectory, currentDirectory: currentDirectory)
        }
        let writesToStandardOutput = options.outputDocument == "-" || standardOutputPath != nil
        if let document = options.outputDocument, writesToStandardOutput {
            // Named after the URL, in the store (see Session).
            options.outputDocument = nil
            // The bytes go out in order, as they come: over one connection.
            if let connections = options.connections, connections > 1 {
                // (`-O -`, or the device or pipe it names: `-O /dev/null`.)
                throw .other(
                    "-O \(document) writes the file in order as it comes, over one connection: not with"
                        + " \(connections) connections (-x, -s)")
            }
        }
        let directory = URL(
            fileURLWithPath: options.outputDirectory ?? ".", isDirectory: true, relativeTo: currentDirectory
        ).standardizedFileURL
        var jobs: [Job] = []
        var taken: [String: URL] = [:]
        for entry in entries {
            let name = options.outputDocument ?? entry.out ?? FileNaming.name(for: entry.url)
            var file = URL(fileURLWithPath: name, isDirectory: false, relativeTo: directory).standardizedFileURL
            if let owner = taken[file.path] {
                // The same URL to the same file twice is one download; another URL gets a name
                // of its own, the same one on every run so that a rerun continues it.
                if owner == entry.url { continue }
                file = FileNaming.unique(file) { taken[$0.path] != nil }
            }
            taken[file.path] = entry.url
            let namedByServer = options.usesServerNames && options.outputDocument == nil && entry.out == nil
            jobs.append(
                Job(
                    url: entry.url, mirrors: entry.mirrors, digest: entry.digest, file: file,
                    namedByServer: namedByServer))
        }
        return Plan(
            jobs: jobs, maximumConcurrentDownloads: options.maximumConcurrentDownloads ?? defaultConcurrentDownloads,
            limitRate: options.limitRate, connections: options.connections ?? 1,
            acceptsCompressedBodies: options.acceptsCompressedBodies, maximumFileSize: options.maximumFileSize,
            userAgent: options.userAgent ?? Help.userAgent, headers: options.headers,
            credentials: options.credentials.map { credentials in
                var credentials = credentials
                let urls = jobs.flatMap { [$0.url] + $0.mirrors }
                credentials.hosts = Set(urls.compactMap { $0.host?.lowercased() })
                return credentials
            },
            writesToStandardOutput: writesToStandardOutput, standardOutputPath: standardOutputPath,
            forcesStandardOutput: options.outputs == [.path("-")],
            maximumRetries: options.tries.map { $0 == 0 ? Int.max : $0 - 1 }, retryWait: options.retryWait,
            timeout: options.timeout, proxy: try proxy(options), trust: try trustRule(options),
            connectionTimeout: options.connectionTimeout, maximumTime: options.maximumTime,
            addressFamily: options.addressFamily, existingFiles: options.existingFiles,
            continuesExistingFiles: options.continuesExistingFiles, mode: options.mode,
            progressInterval: options.progressInterval, notices: entries.flatMap(\.notices),
            http: http(options, jobs: jobs), dotStyle: options.dotStyle)
    }

    /// The HTTP options, with the hosts of the jobs' URLs.
    private static func http(_ options: Options, jobs: [Job]) -> HTTPSettings {
        var http = options.http
        http.hosts = Set(jobs.flatMap { [$0.url] + $0.mirrors }.compactMap { $0.host?.lowercased() })
        return http
    }

    /// The path of `document` (in `directory`) when it is a device or a named pipe (`/dev/null`,
    /// a FIFO) that is there: written to as it is, never replaced.
    private static func streamPath(_ document: String, in directory: String?, currentDirectory: URL) -> String? {
        guard document != "-" else { return nil }
        let folder = URL(fileURLWithPath: directory ?? ".", isDirectory: true, relativeTo: currentDirectory)
        let path = URL(fileURLWithPath: document, relativeTo: folder).standardizedFileURL.path
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFCHR || kind == S_IFIFO ? path : nil
    }

    /// `--proxy` and `--no-proxy`; nil without `--proxy`.
    private static func proxy(_ options: Options) throws(UsageError) -> Proxy? {
        guard let text = options.proxy else { return nil }
        // curl takes a bare host:port as an HTTP proxy.
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: withScheme), let proxy = Proxy(url: url, bypassedHosts: options.bypassedHosts)
        else {
            throw .invalidValue(
                option: options.proxyOption, value: text, expected: "a URL: http://HOST:PORT, https://…, socks5://…")
        }
        return proxy
    }

    /// `--cacert`, `--pinnedpubkey`, `--cert`/`--key` and `-k` as one rule for every host; nil
    /// without them.
    private static func trustRule(_ options: Options) throws(UsageError) -> TrustRule? {
        guard options.checksCertificates else { return .acceptingAnyCertificate(forHost: "*") }
        let identity = try clientIdentity(options)
        guard !options.authorities.isEmpty || !options.pins.isEmpty || identity != nil else { return nil }
        return TrustRule(
            host: "*", additionalAuthorities: options.authorities.map { .file(URL(fileURLWithPath: $0)) },
            publicKeyPins: options.pins, clientIdentity: identity)
    }

    /// `--cert FILE[:PASSWORD]` with `--key FILE` (PEM), or a `.p12`/`.pfx` file alone.
    private static func clientIdentity(_ options: Options) throws(UsageError) -> ClientIdentity? {
        guard let value = options.clientCertificate else {
            if options.clientKey != nil { throw .other("--key needs --cert: the certificate of the key") }
            return nil
        }
        let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
        let file = URL(fileURLWithPath: parts[0])
        let password = parts.count == 2 ? parts[1] : nil
        if ["p12", "pfx"].contains(file.pathExtension.lowercased()) {
            return .pkcs12(file, password: password ?? "")
        }
        guard let key = options.clientKey else {
            throw .other("--cert \(parts[0]) needs its private key: --key FILE (or give a .p12 file)")
        }
        return .pem(certificate: file, key: URL(fileURLWithPath: key), password: password)
    }

    /// Options that name one file make sense with one URL only.
    private static func checkOneURLOptions(_ options: Options, count: Int) throws(UsageError) {
        guard count > 1 else { return }
        if options.outputDocument != nil {
            throw .other("-O (--output-document) takes one URL, not \(count); use -d DIR for several")
        }
        if let digest = options.digest {
            throw .other(
                "--\(digest.algorithm.optionName) takes one URL, not \(count); give each URL its"
                    + " checksum in an input file (-i FILE) with an indented line"
                    + " 'checksum=\(digest.algorithm.inputFileName)=HEX' after it")
        }
        if !options.mirrors.isEmpty {
            throw .other(
                "--mirror takes one URL, not \(count); give each URL its mirrors in an input file"
                    + " (-i FILE) with indented lines 'mirror=URL' after it")
        }
    }
}

extension Digest.Algorithm {
    /// The command-line option for it, without dashes.
    var optionName: String {
        switch self {
        case .sha512: "sha512"
        case .sha384: "sha384"
        case .sha1: "sha1"
        case .md5: "md5"
        default: "sha256"
        }
    }

    /// Its name in an input file's `checksum=` line.
    var inputFileName: String {
        switch self {
        case .sha512: "sha-512"
        case .sha384: "sha-384"
        case .sha1: "sha-1"
        case .md5: "md5"
        default: "sha-256"
        }
    }
}

/// File names from URLs, as wget and curl give them.
enum FileNaming {
    /// The name for `url`'s file: the last component of its path, made safe as the library makes
    /// any name it derives (no separators, no leading dot, no control or format characters, at
    /// most 255 bytes with the extension kept); `index.html` when the path has none, as wget's.
    static func name(for url: URL) -> String {
        url.path.split(separator: "/").isEmpty ? "index.html" : Destination.fileName(for: url)
    }

    /// `file` or the first of `name (1).ext`, `name (2).ext`… that `isTaken` does not refuse.
    static func unique(_ file: URL, isTaken: (URL) -> Bool) -> URL {
        guard isTaken(file) else { return file }
        let directory = file.deletingLastPathComponent()
        let fileExtension = file.pathExtension
        let stem = file.deletingPathExtension().lastPathComponent
        var number = 1
        while true {
            let name = "\(stem) (\(number))" + (fileExtension.isEmpty ? "" : ".\(fileExtension)")
            let candidate = directory.appendingPathComponent(name, isDirectory: false)
            if !isTaken(candidate) { return candidate }
            number += 1
        }
    }
}
