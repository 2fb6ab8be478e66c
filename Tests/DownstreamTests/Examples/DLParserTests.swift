import Downstream
import Foundation
import Testing

@testable import dl

/// `dl`'s command line: each form of each option, the rules between them, and the errors.
@Suite struct DLParserTests {
    static let sha256 = String(repeating: "ab", count: 32)

    @Test(arguments: [
        ["-j", "4"], ["-j4"], ["--max-concurrent-downloads", "4"], ["--max-concurrent-downloads=4"], ["-qj4"],
    ])
    func aValueGoesApartAttachedOrAfterAnEqualsSign(_ arguments: [String]) throws {
        let options = try Options.parse(arguments + ["https://example.com/a"])
        #expect(options.maximumConcurrentDownloads == 4)
        #expect(options.urls == ["https://example.com/a"])
    }

    @Test func everyOptionSetsWhatItSays() throws {
        let options = try Options.parse([
            "-i", "urls.txt", "--input-file=-", "-o", "out", "-O", "file.iso", "-c", "-N", "--sha256", Self.sha256,
            "--mirror", "https://mirror.example.org/a", "--json", "--progress-interval", "0.5", "https://example.com/a",
        ])
        #expect(options.inputFiles == ["urls.txt", "-"])
        #expect(options.outputs == [.path("out")])
        #expect(options.outputDocument == "file.iso")
        #expect(options.existingFiles == .replaceIfChanged)
        #expect(options.digest == .sha256(Self.sha256))
        #expect(options.mirrors == ["https://mirror.example.org/a"])
        #expect(options.mode == .json)
        #expect(options.progressInterval == .milliseconds(500))
        #expect(try Options.parse(["-P", "dir"]).outputDirectory == "dir")
        #expect(try Options.parse(["-d", "dir"]).outputDirectory == "dir")
        #expect(try Options.parse(["--output-dir", "dir"]).outputDirectory == "dir")
        #expect(try Options.parse(["--md5", String(repeating: "0", count: 32)]).digest?.algorithm == .md5)
        #expect(try Options.parse(["--sha1", String(repeating: "F", count: 40)]).digest?.algorithm == .sha1)
        #expect(try Options.parse(["--sha512", String(repeating: "a", count: 128)]).digest?.algorithm == .sha512)
        #expect(try Options.parse(["--sha384", String(repeating: "b", count: 96)]).digest?.algorithm == .sha384)
        #expect(
            try Options.parse(["--checksum", "sha-512=" + String(repeating: "c", count: 128)]).digest
                == .sha512(String(repeating: "c", count: 128)))
        #expect(try Options.parse(["-q"]).mode == .quiet)
        #expect(try Options.parse(["-h"]).showsHelp)
        #expect(try Options.parse(["--version"]).showsVersion)
    }

    @Test(arguments: [
        (["-nc"], Options.ExistingFiles.keep), (["--no-clobber"], .keep), (["-N"], .replaceIfChanged),
        (["--timestamping"], .replaceIfChanged), (["--overwrite"], .overwrite), (["--unique"], .unique),
        ([], .fail), (["-c"], .fail), (["--continue", "-nc"], .keep),
    ])
    func existingFileFlagsChooseAPolicy(_ arguments: [String], _ expected: Options.ExistingFiles) throws {
        #expect(try Options.parse(arguments).existingFiles == expected)
    }

    /// `-c` and `-C -` continue another program's file where dl would fail; the other flags say
    /// what they say of an existing file, and `-c` changes nothing there.
    @Test func continueContinuesWhatWouldFail() throws {
        for arguments in [["-c"], ["--continue"], ["-C", "-"], ["-qc"]] {
            let options = try Options.parse(arguments)
            #expect(
                options.existingFiles.conflictPolicy(continuing: options.continuesExistingFiles) == .continueExisting)
        }
        #expect(try Options.parse([]).existingFiles.conflictPolicy(continuing: false) == .fail)
        for (flag, policy) in [
            ("-nc", Destination.ConflictPolicy.useExisting), ("-N", .replaceIfChanged), ("--overwrite", .replace),
        ] {
            let options = try Options.parse(["-c", flag])
            #expect(options.existingFiles.conflictPolicy(continuing: options.continuesExistingFiles) == policy)
        }
    }

    @Test func flagsClusterAndDoubleDashEndsTheOptions() throws {
        let options = try Options.parse(["-qcN", "--", "-j", "--json", "-"])
        #expect(options.mode == .quiet)
        #expect(options.existingFiles == .replaceIfChanged)
        #expect(options.urls == ["-j", "--json", "-"])
        // A value apart is taken whatever it looks like.
        #expect(try Options.parse(["-i", "-"]).inputFiles == ["-"])
    }

    @Test(arguments: [
        (["--foo"], "unknown option '--foo'"),
        (["-y"], "unknown option '-y'"),
        (["-x"], "option '-x' needs a value (N|PROXY)"),
        (["-x", "0"], "bad number '0' for '-x': it takes a whole number of at least 1"),
        (["-x", "17"], "bad value '17' for '-x': a whole number from 1 to 16"),
        (["-qz"], "unknown option '-z'"),
        (["-zq"], "unknown option '-zq'"),
        (["-j"], "option '-j' needs a value (N)"),
        (["--max-concurrent-downloads"], "option '--max-concurrent-downloads' needs a value (N)"),
        (["--quiet=yes"], "option '--quiet' takes no value"),
        (["-j", "x"], "bad number 'x' for '-j': it takes a whole number of at least 1"),
        (["-j0"], "bad number '0' for '-j': it takes a whole number of at least 1"),
        (["--sha256", "abc"], "bad value 'abc' for '--sha256': 64 hexadecimal digits (SHA-256)"),
        (["--progress-interval", "-1"], "bad value '-1' for '--progress-interval': seconds, from 0 to 86400"),
        (["-nc", "--overwrite"], "--no-clobber and --overwrite cannot be used together"),
        (["-q", "--json"], "--quiet and --json cannot be used together"),
        (
            ["--limit-rate", "0"],
            "bad value '0' for '--limit-rate': bytes per second, at least 1, with an optional k, M or G suffix"
                + " (500k, 2M, 1.5M, 1G)"
        ),
        (
            ["--limit-rate", "5T"],
            "bad value '5T' for '--limit-rate': bytes per second, at least 1, with an optional k, M or G suffix"
                + " (500k, 2M, 1.5M, 1G)"
        ),
        (
            ["--limit-rate=k"],
            "bad value 'k' for '--limit-rate': bytes per second, at least 1, with an optional k, M or G suffix"
                + " (500k, 2M, 1.5M, 1G)"
        ),
        // Another tool's flag says what to use instead; a typo of a long option, the nearest.
        (["--ftp-user", "x"], "unknown option '--ftp-user'; dl downloads over HTTP and HTTPS only"),
        (["--limit-rat", "2M"], "unknown option '--limit-rat'; did you mean '--limit-rate'?"),
        (["--user-agnet", "x"], "unknown option '--user-agnet'; did you mean '--user-agent'?"),
        (["-H", "no colon"], "bad value 'no colon' for '-H': 'NAME: VALUE', on one line"),
        (["-C", "100"], "bad value '100' for '-C': '-' (dl continues from where the file ends)"),
        (["-t", "x"], "bad value 'x' for '-t': a whole number, 0 for no limit"),
        (
            ["--checksum", "crc=12"],
            "bad value 'crc=12' for '--checksum': TYPE=HEX, TYPE one of sha-512, sha-384, sha-256, sha-1, md5"
        ),
    ])
    func mistakesAreTypedErrorsThatSayWhat(_ arguments: [String], _ message: String) {
        #expect(throws: UsageError.self) { try Options.parse(arguments) }
        do {
            _ = try Options.parse(arguments)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(arguments: [
        ("1000", 1000), ("500k", 512_000), ("500K", 512_000), ("2M", 2_097_152), ("2m", 2_097_152),
        ("1.5M", 1_572_864), ("1G", 1_073_741_824), ("0.5k", 512),
    ])
    func aRateTakesKAndMSuffixes(_ value: String, _ bytesPerSecond: Int) throws {
        #expect(try Options.parse(["--limit-rate", value]).limitRate == bytesPerSecond)
        #expect(try Options.parse(["--limit-rate=\(value)"]).limitRate == bytesPerSecond)
        let plan = try Plan.make(
            try Options.parse(["--limit-rate", value, "https://example.com/a"]),
            currentDirectory: URL(fileURLWithPath: "/tmp"))
        #expect(plan.limitRate == bytesPerSecond)
    }

    @Test func compressedBodiesAndAFileSizeLimitGoIntoEveryRequest() throws {
        let directory = URL(fileURLWithPath: "/tmp")
        let plan = try Plan.make(
            try Options.parse(["--compressed", "--max-filesize", "1.5M", "https://example.com/a"]),
            currentDirectory: directory)
        #expect(plan.acceptsCompressedBodies)
        #expect(plan.maximumFileSize == 1_572_864)
        let plain = try Plan.make(try Options.parse(["https://example.com/a"]), currentDirectory: directory)
        #expect(!plain.acceptsCompressedBodies)
        #expect(plain.maximumFileSize == nil)
        #expect(throws: UsageError.self) { try Options.parse(["--max-filesize", "0"]) }
    }

    @Test func connectionsPerFileGoIntoThePlan() throws {
        let directory = URL(fileURLWithPath: "/tmp")
        #expect(try Plan.make(Options.parse(["https://example.com/a"]), currentDirectory: directory).connections == 1)
        for arguments in [
            ["-x", "8"], ["-x8"], ["--max-connection-per-server", "8"], ["--max-connection-per-server=8"],
        ] {
            let plan = try Plan.make(Options.parse(arguments + ["https://example.com/a"]), currentDirectory: directory)
            #expect(plan.connections == 8, "\(arguments)")
        }
    }

    @Test func theParserIsTableDriven() throws {
        // An option is one entry of a table, as `-x N` (connections per file) is in dl's.
        struct Settings { var connections = 1 }
        let parser = ArgumentParser<Settings>([
            OptionSpec(
                names: ["-x", "--max-connection-per-server"],
                action: .value("N") { settings, value throws(UsageError) in
                    settings.connections = try UsageError.positiveInteger(value, for: "-x")
                },
                section: "Downloads", help: "connections per file")
        ])
        var settings = Settings()
        try parser.parse(["-x8"], into: &settings) { _, _ throws(UsageError) in }
        #expect(settings.connections == 8)
        try parser.parse(["--max-connection-per-server=3"], into: &settings) { _, _ throws(UsageError) in }
        #expect(settings.connections == 3)
    }

    // MARK: - Plans

    static let here = URL(fileURLWithPath: "/work/here", isDirectory: true)

    @Test func filesAreNamedAfterTheirURLsInTheOutputDirectory() throws {
        var options = try Options.parse([
            "-o", "out", "https://example.com/a/movie.mp4?token=1", "https://example.com/",
            "https://example.com/b/..%2F.hidden",
        ])
        var plan = try Plan.make(options, currentDirectory: Self.here)
        #expect(
            plan.jobs.map(\.file.path) == [
                "/work/here/out/movie.mp4", "/work/here/out/index.html", "/work/here/out/hidden",
            ])
        #expect(plan.maximumConcurrentDownloads == Plan.defaultConcurrentDownloads)
        #expect(plan.existingFiles == .fail)

        options = try Options.parse(["-O", "x/renamed.iso", "https://example.com/a.iso"])
        plan = try Plan.make(options, currentDirectory: Self.here)
        #expect(plan.jobs.map(\.file.path) == ["/work/here/x/renamed.iso"])
    }

    /// The flags wget, curl and aria2 users type: each sets what it says.
    @Test func habitualFlagsOfOtherToolsWork() throws {
        let sha = String(repeating: "ab", count: 32)
        let options = try Options.parse([
            "-L", "-C", "-", "-s", "4", "-H", "Authorization: Bearer t", "--header=X-Tag:  a:b", "-t", "5",
            "--retry-wait", "0.5", "-T", "30", "--checksum=sha-256=\(sha)", "https://example.com/a",
        ])
        #expect(options.connections == 4)
        #expect(options.headers.map { "\($0.name)=\($0.value)" } == ["Authorization=Bearer t", "X-Tag=a:b"])
        #expect(options.tries == 5)
        #expect(options.retryWait == .milliseconds(500))
        #expect(options.timeout == .seconds(30))
        #expect(options.digest == .sha256(sha))
        let plan = try Plan.make(options, currentDirectory: Self.here)
        #expect(plan.maximumRetries == 4)
        #expect(plan.headers == options.headers)
        #expect(
            try Plan.make(try Options.parse(["-t", "0", "https://e.com/a"]), currentDirectory: Self.here)
                .maximumRetries == .max)
    }

    /// curl's and aria2's `-o FILE` with one URL is the file; a folder (one that exists, or a
    /// path ending in `/`) or several URLs make it the folder; curl's `-O URL` saves under the
    /// URL's name.
    @Test func minusOIsTheFileOfOneURLAndMinusOWithAURLIsCurls() throws {
        let here = FileManager.default.temporaryDirectory
        let url = "https://example.com/a/movie.mp4"
        var plan = try Plan.make(try Options.parse(["-o", "out.bin", url]), currentDirectory: here)
        #expect(plan.jobs.map(\.file.lastPathComponent) == ["out.bin"])
        #expect(plan.jobs.first?.file.deletingLastPathComponent().standardizedFileURL == here.standardizedFileURL)
        plan = try Plan.make(try Options.parse(["-o", "sub/", url]), currentDirectory: here)
        #expect(plan.jobs.map(\.file.path) == [here.appendingPathComponent("sub/movie.mp4").standardizedFileURL.path])
        let existing = here.appendingPathComponent("dl-parser-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: existing) }
        plan = try Plan.make(try Options.parse(["-o", existing.path, url]), currentDirectory: here)
        #expect(plan.jobs.map(\.file.path) == [existing.appendingPathComponent("movie.mp4").path])
        plan = try Plan.make(
            try Options.parse(["-o", "out", url, "https://example.com/b.bin"]), currentDirectory: here)
        #expect(plan.jobs.map(\.file.lastPathComponent) == ["movie.mp4", "b.bin"])
        #expect(plan.jobs.allSatisfy { $0.file.deletingLastPathComponent().lastPathComponent == "out" })
        plan = try Plan.make(try Options.parse(["-d", "dir", "-o", "name.bin", url]), currentDirectory: here)
        #expect(plan.jobs.map(\.file.path) == [here.appendingPathComponent("dir/name.bin").standardizedFileURL.path])

        let curl = try Options.parse(["-O", url])
        #expect(curl.urls == [url])
        #expect(curl.outputDocument == nil)
        plan = try Plan.make(curl, currentDirectory: here)
        #expect(plan.jobs.map(\.file.lastPathComponent) == ["movie.mp4"])
    }

    @Test func twoURLsWithOneNameGetTwoFilesAndTheSameURLTwiceIsOne() throws {
        let options = try Options.parse([
            "https://a.example.com/file.zip", "https://b.example.com/file.zip", "https://a.example.com/file.zip",
            "https://c.example.com/file.zip",
        ])
        let plan = try Plan.make(options, currentDirectory: Self.here)
        #expect(plan.jobs.map(\.name) == ["file.zip", "file (1).zip", "file (2).zip"])
        #expect(plan.jobs.map(\.url.host) == ["a.example.com", "b.example.com", "c.example.com"])
    }

    @Test func digestsMirrorsAndAFileNameTakeOneURL() throws {
        let one = try Plan.make(
            try Options.parse(["--sha256", Self.sha256, "--mirror", "https://m.example.org/a", "https://example.com/a"]
            ),
            currentDirectory: Self.here)
        #expect(one.jobs[0].digest == .sha256(Self.sha256))
        #expect(one.jobs[0].mirrors == [URL(string: "https://m.example.org/a")!])

        let several = ["https://example.com/a", "https://example.com/b"]
        for (arguments, message) in [
            (["--sha256", Self.sha256], "give each URL its checksum in an input file (-i FILE)"),
            (["--mirror", "https://m.example.org/a"], "give each URL its mirrors in an input file"),
            (["-O", "file"], "-O (--output-document) takes one URL, not 2"),
        ] {
            #expect(throws: UsageError.self) {
                try Plan.make(try Options.parse(arguments + several), currentDirectory: Self.here)
            }
            do {
                _ = try Plan.make(try Options.parse(arguments + several), currentDirectory: Self.here)
            } catch {
                #expect(error.description.contains(message), "\(error)")
            }
        }
        #expect(throws: UsageError.other("missing URL")) { try Plan.make(Options(), currentDirectory: Self.here) }
        #expect(throws: UsageError.self) {
            try Plan.make(try Options.parse(["ftp://example.com/a"]), currentDirectory: Self.here)
        }
        // A URL without a scheme is http://, as curl's and wget's (DLCurlHabitsTests has the rest).
        #expect(
            try Plan.make(try Options.parse(["example.com/a"]), currentDirectory: Self.here).jobs.map(\.url)
                == [URL(string: "http://example.com/a")!])
    }

    // MARK: - Input files

    @Test func anInputFileHasURLsCommentsAndIndentedOptions() throws {
        let text = """
            # Debian
            https://example.com/a.iso
              checksum=sha-256=\(Self.sha256)
              out=debian.iso
            \tmirror=https://m1.example.org/a.iso

            https://example.com/b.zip\thttps://m2.example.org/b.zip
               # not an option
            https://example.com/c.txt\r
              checksum=MD5=\(String(repeating: "0", count: 32))
            """
        let entries = try InputFile.parse(text, name: "urls.txt")
        #expect(entries.count == 3)
        #expect(entries[0].url.absoluteString == "https://example.com/a.iso")
        #expect(entries[0].digest == .sha256(Self.sha256))
        #expect(entries[0].out == "debian.iso")
        #expect(entries[0].mirrors.map(\.absoluteString) == ["https://m1.example.org/a.iso"])
        #expect(entries[1].mirrors.map(\.absoluteString) == ["https://m2.example.org/b.zip"])
        #expect(entries[2].digest?.algorithm == .md5)

        let plan = try Plan.make(try Options.parse(["-o", "d"]), inputs: entries, currentDirectory: Self.here)
        #expect(plan.jobs.map(\.name) == ["debian.iso", "b.zip", "c.txt"])
    }

    @Test(arguments: [
        ("  out=x\nhttps://example.com/a", "urls.txt:1: an option line ('out=x') must follow a URL"),
        ("https://example.com/a\n  size=3", "urls.txt:2: unknown option 'size' (known: out, checksum, mirror)"),
        ("https://example.com/a\n  out", "urls.txt:2: 'out' is not NAME=VALUE (out, checksum, mirror)"),
        (
            "https://example.com/a\n  checksum=crc=12",
            "urls.txt:2: checksum must be TYPE=HEX, TYPE one of sha-512, sha-384, sha-256, sha-1, md5"
        ),
        (
            "\n\nnot a url",
            "urls.txt:3: 'not a url' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"
        ),
        (
            "https://example.com/a\n  out=../escaped.bin",
            "urls.txt:2: out=../escaped.bin goes up out of the folder ('..'); a name from a list stays inside the output folder"
        ),
        (
            "https://example.com/a\n  out=/tmp/x.bin",
            "urls.txt:2: out=/tmp/x.bin is an absolute path; a name from a list stays inside the output folder"
        ),
        (
            "https://example.com/a\n  out=sub/../../x.bin",
            "urls.txt:2: out=sub/../../x.bin goes up out of the folder ('..'); a name from a list stays inside the output folder"
        ),
        (
            "https://example.com/a\n  out=sub/",
            "urls.txt:2: out=sub/ names a folder, not a file; a name from a list stays inside the output folder"
        ),
        (
            "https://example.com/a\n  checksum=sha-1=12",
            "bad value '12' for 'urls.txt:2: checksum': 40 hexadecimal digits (SHA-1)"
        ),
    ])
    func anInputFileMistakeNamesItsLine(_ text: String, _ message: String) {
        do {
            _ = try InputFile.parse(text, name: "urls.txt")
            Issue.record("no error for \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func helpListsEveryOptionAndExitStatusInEightyColumns() {
        let help = Help.text
        for spec in Options.table {
            for name in spec.names { #expect(help.contains(name)) }
        }
        for code in ExitCode.all { #expect(help.contains("  \(code.rawValue)  ")) }
        for line in help.split(separator: "\n") { #expect(line.count <= 79, "\(line)") }
    }
}
