import Downstream
import Foundation
import Testing

@testable import dl

/// The command lines curl, wget and aria2 users paste: curl's short flags where they collide with
/// aria2's, URLs without a scheme, curl's `-o` pairs and URL globs, and other tools' flags.
@Suite struct DLCurlHabitsTests {
    static let url = "https://example.com/a.bin"
    static let here = URL(fileURLWithPath: "/work/here", isDirectory: true)

    static func plan(_ arguments: [String], in directory: URL = here) throws -> Plan {
        try Plan.make(try Options.parse(arguments), currentDirectory: directory)
    }

    static func error(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    // MARK: - -s and -x

    /// `-s` alone, or bundled with other flags, or followed by a URL or an option, is curl's
    /// silent (`-q`).
    @Test(arguments: [
        ["-s", url], ["-sL", url], ["-fsL", url], ["-sfL", url], ["-Ls", url], ["-s", "-L", url], [url, "-s"],
        ["--silent", url], ["-s", "-o", "f", url], ["-so", "f", url], ["-sS", url], ["-sSL", url], ["-fsSL", url],
    ])
    func minusSAloneIsCurlsSilent(_ arguments: [String]) throws {
        let options = try Options.parse(arguments)
        #expect(options.mode == .quiet)
        #expect(options.connections == nil)
        #expect(options.urls == [Self.url])
    }

    /// `-s N` with a whole number, apart or attached, is aria2's split, as `--split N` is.
    @Test(arguments: [
        ["-s", "4", url], ["-s4", url], ["-Ls", "4", url], ["-Ls4", url], ["--split", "4", url], ["--split=4", url],
    ])
    func minusSWithANumberIsAria2sSplit(_ arguments: [String]) throws {
        let options = try Options.parse(arguments)
        #expect(options.connections == 4)
        #expect(options.mode == .automatic)
        #expect(options.urls == [Self.url])
    }

    @Test func minusXIsConnectionsWithANumberAndAProxyOtherwise() throws {
        for arguments in [["-x", "8"], ["-x8"], ["--max-connection-per-server", "8"]] {
            let options = try Options.parse(arguments + [Self.url])
            #expect(options.connections == 8, "\(arguments)")
            #expect(options.proxy == nil)
        }
        for (value, proxy) in [
            ("http://proxy.example:3128", "http://proxy.example:3128"),
            ("proxy.example:3128", "http://proxy.example:3128"),
            ("socks5://127.0.0.1:1080", "socks5://127.0.0.1:1080"),
        ] {
            let options = try Options.parse(["-x", value, Self.url])
            #expect(options.connections == nil)
            #expect(options.proxy == value)
            let plan = try Plan.make(options, currentDirectory: Self.here)
            #expect(plan.proxy?.description == proxy, "\(value)")
        }
        #expect(try Options.parse(["-xproxy.example:3128"]).proxy == "proxy.example:3128")
        // A proxy that is not one names the option it came with.
        #expect(
            Self.error { _ = try Self.plan(["-x", "a b", Self.url]) }
                == "bad value 'a b' for '-x': a URL: http://HOST:PORT, https://…, socks5://…")
        #expect(
            Self.error { _ = try Self.plan(["--proxy", "a b", Self.url]) }
                == "bad value 'a b' for '--proxy': a URL: http://HOST:PORT, https://…, socks5://…")
    }

    @Test(arguments: [
        (["-s0", url], "bad number '0' for '-s': it takes a whole number of at least 1"),
        (["-s", "17", url], "bad value '17' for '-s': a whole number from 1 to 16"),
        (["-s", "--json", url], "--quiet and --json cannot be used together"),
        (["-x", "0"], "bad number '0' for '-x': it takes a whole number of at least 1"),
        (["--split", "x"], "bad number 'x' for '--split': it takes a whole number of at least 1"),
        (
            ["--max-connection-per-server", "proxy:3128"],
            "bad number 'proxy:3128' for '--max-connection-per-server': it takes a whole number of at least 1"
        ),
        (["-sz"], "unknown option '-z'"),
        (["--retry", "x"], "bad value 'x' for '--retry': a whole number of retries"),
        (["--retry", "-1"], "bad value '-1' for '--retry': a whole number of retries"),
        (
            ["-w", "%{http_code}"],
            "unknown option '-w'; dl prints no format of yours; --json prints a JSON object a line for scripts"
        ),
        (
            ["--write-out", "x"],
            "unknown option '--write-out'; dl prints no format of yours; --json prints a JSON object a line for scripts"
        ),
        (
            ["--trust-server-names"],
            "unknown option '--trust-server-names'; dl names a file after the URL given, not after a redirect's;"
                + " --content-disposition names it as the server says"
        ),
        (["--auto-file-renaming", "-nc"], "--auto-file-renaming and --no-clobber cannot be used together"),
    ])
    func mistakesNameTheRightFlag(_ arguments: [String], _ message: String) {
        #expect(Self.error { _ = try Options.parse(arguments) } == message)
    }

    /// An option whose value is optional takes one only in the form its spec accepts: a general
    /// mechanism of the parser, not a case of `-s`.
    @Test func anOptionalValueIsTakenOnlyWhenItsFormMatches() throws {
        struct Settings: Equatable {
            var level: Int?
            var loud = false
            var positional: [String] = []
        }
        let parser = ArgumentParser<Settings>([
            OptionSpec(
                names: ["-l"],
                action: .optionalValue("LEVEL", accepts: { ["low", "high"].contains($0) }) { settings, value in
                    if let value { settings.level = value == "low" ? 1 : 9 } else { settings.level = 5 }
                },
                section: "S", help: "a level"),
            OptionSpec(names: ["-y"], action: .flag { $0.loud = true }, section: "S", help: "loud"),
        ])
        func parse(_ arguments: [String]) throws -> Settings {
            var settings = Settings()
            try parser.parse(arguments, into: &settings) { settings, text throws(UsageError) in
                settings.positional.append(text)
            }
            return settings
        }
        #expect(try parse(["-l", "high", "x"]) == Settings(level: 9, positional: ["x"]))
        #expect(try parse(["-llow"]) == Settings(level: 1))
        #expect(try parse(["-l", "x"]) == Settings(level: 5, positional: ["x"]))
        #expect(try parse(["-ly", "low"]) == Settings(level: 5, loud: true, positional: ["low"]))
        #expect(try parse(["-yl", "low"]) == Settings(level: 1, loud: true))
        #expect(try parse(["-l"]) == Settings(level: 5))
        #expect(parser.specs[0].valueName == "[LEVEL]")
    }

    // MARK: - Other tools' flags

    @Test func otherToolsFlagsSetWhatTheySay() throws {
        var options = try Options.parse([
            "-f", "-Z", "--parallel", "--fail", "--create-dirs", "--parallel-max", "3", "--retry", "3",
            "--retry-delay", "2", "--save-session", "s.txt", "--auto-file-renaming", Self.url,
        ])
        #expect(options.maximumConcurrentDownloads == 3)
        #expect(options.tries == 4)
        #expect(options.retryWait == .seconds(2))
        #expect(options.existingFiles == .unique)
        #expect(options.globs)
        #expect(try Plan.make(options, currentDirectory: Self.here).maximumRetries == 3)
        #expect(try Options.parse(["--auto-file-renaming=true"]).existingFiles == .unique)
        #expect(try Options.parse(["--auto-file-renaming", "true", Self.url]).urls == [Self.url])
        #expect(try Options.parse(["--auto-file-renaming=false", "-nc"]).existingFiles == .keep)
        #expect(try Options.parse(["--auto-file-renaming", "false", Self.url]).existingFiles == .fail)
        #expect(
            Self.error { _ = try Options.parse(["--auto-file-renaming=maybe"]) }
                == "bad value 'maybe' for '--auto-file-renaming': true or false")
        options = try Options.parse(["--retry", "0", "-g", Self.url])
        #expect(options.tries == 1)
        #expect(!options.globs)
        #expect(try Options.parse(["--globoff"]).globs == false)
    }

    @Test func helpSaysWhichToolEachSpellingComesFrom() {
        let help = Help.text
        let names = Set(Options.table.flatMap(\.names))
        for (name, tool) in Options.origins {
            #expect(names.contains(name), "\(name)")
            #expect(["curl", "wget", "aria2"].contains(tool))
        }
        #expect(help.contains("  -q, --quiet, --silent (curl)"))
        #expect(help.contains("  -s [N]   "))
        #expect(help.contains("  -d, --dir (aria2), --output-dir (curl) DIR\n"))
        #expect(help.contains("  -x N|PROXY   "))
        #expect(
            Help.label(["-k", "--insecure", "--no-check-certificate"])
                == "-k, --insecure (curl), --no-check-certificate (wget)")
    }

    // MARK: - URLs without a scheme

    @Test(arguments: [
        ("127.0.0.1:8080/f.bin", "http://127.0.0.1:8080/f.bin"), ("example.com/x", "http://example.com/x"),
        ("localhost/x", "http://localhost/x"), ("example.com", "http://example.com"),
        ("[::1]:8080/x", "http://[::1]:8080/x"), ("example.com/a?b=c", "http://example.com/a?b=c"),
        ("HTTPS://example.com/x", "HTTPS://example.com/x"),
    ])
    func aURLWithoutASchemeIsHTTP(_ text: String, _ expected: String) throws {
        #expect(try Entry.url(text).absoluteString == expected)
    }

    @Test(arguments: [
        ("ftp://example.com/x", "'ftp://example.com/x' is not an http or https URL"),
        ("http:///x", "'http:///x' is not an http or https URL"),
        ("", "'' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"),
        ("/tmp/x", "'/tmp/x' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"),
        ("./x", "'./x' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"),
        ("example.com/a b", "'example.com/a b' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"),
        (":8080/x", "':8080/x' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"),
        ("host:port/x", "'host:port/x' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"),
        (
            "mailto:a@example.com",
            "'mailto:a@example.com' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)"
        ),
    ])
    func whatIsNotAURLIsStillRefused(_ text: String, _ message: String) {
        #expect(Self.error { _ = try Entry.url(text) } == message)
    }

    @Test func verboseSaysWhichURLsGotHTTP() throws {
        let plan = try Self.plan(["example.com/x", "https://example.com/y", "localhost:8080/z"])
        #expect(
            plan.notices == [
                "no scheme in 'example.com/x': using http://example.com/x",
                "no scheme in 'localhost:8080/z': using http://localhost:8080/z",
            ])
        let mirrored = try Self.plan(["example.com/x", "--mirror", "m.example.org/x"])
        #expect(mirrored.jobs[0].mirrors == [URL(string: "http://m.example.org/x")!])
        #expect(mirrored.notices.last == "no scheme in 'm.example.org/x': using http://m.example.org/x")
        let entries = try InputFile.parse("example.com/x\n  mirror=m.example.org/x\nhttps://e.com/y\n", name: "list")
        #expect(entries.map(\.url.absoluteString) == ["http://example.com/x", "https://e.com/y"])
        #expect(
            entries[0].notices == [
                "list:1: no scheme in 'example.com/x': using http://example.com/x",
                "list:2: no scheme in 'm.example.org/x': using http://m.example.org/x",
            ])
        #expect(entries[1].notices.isEmpty)
    }

    /// After `-O`, a URL with a scheme or a `HOST:PORT` is curl's `-O URL`; a name, also one with
    /// a folder or a dot, is wget's `-O FILE`.
    @Test func minusOTellsAURLFromAFileName() throws {
        for value in ["http://e.com/a.bin", "127.0.0.1:8080/f.bin", "localhost:8080", "[::1]:80/x"] {
            #expect(Entry.isCurlsRemoteName(value), "\(value)")
            let options = try Options.parse(["-O", value])
            #expect(options.urls == [value])
            #expect(options.outputs == [.remote])
            #expect(options.outputDocument == nil)
        }
        for value in ["name.bin", "dir/name.bin", "example.com/x", "-", "ftp://e.com/x", "a b"] {
            #expect(!Entry.isCurlsRemoteName(value), "\(value)")
            let options = try Options.parse(["-O", value, Self.url])
            #expect(options.outputDocument == value)
            #expect(options.urls == [Self.url])
        }
        // curl's -O without a value: before another option, after the URL, bundled (-LO URL).
        for arguments in [["-O", "-L", Self.url], [Self.url, "-O"], ["-LO", Self.url], ["-sLO", Self.url]] {
            let options = try Options.parse(arguments)
            #expect(options.outputs == [.remote], "\(arguments)")
            #expect(options.outputDocument == nil)
            #expect(try Plan.make(options, currentDirectory: Self.here).jobs.map(\.name) == ["a.bin"])
        }
        // wget's -O- and -O - are standard output.
        #expect(try Options.parse(["-O-", Self.url]).outputDocument == "-")
        #expect(try Options.parse(["-O", "-", Self.url]).outputDocument == "-")
        let plan = try Self.plan(["-O", "name.bin", "127.0.0.1:8080/f.bin"])
        #expect(plan.jobs.map(\.file.path) == ["/work/here/name.bin"])
        #expect(plan.jobs.map(\.url.absoluteString) == ["http://127.0.0.1:8080/f.bin"])
    }

    // MARK: - -o pairs

    @Test func severalMinusOPairWithTheURLsInOrder() throws {
        let (u1, u2, u3) = ("https://e.com/1.bin", "https://e.com/2.bin", "https://e.com/3.bin")
        for arguments in [
            ["-o", "a", u1, "-o", "b", u2], ["-o", "a", "-o", "b", u1, u2], [u1, u2, "-o", "a", "-o", "b"],
        ] {
            let plan = try Self.plan(arguments)
            #expect(plan.jobs.map(\.file.path) == ["/work/here/a", "/work/here/b"], "\(arguments)")
            #expect(plan.jobs.map(\.url.absoluteString) == [u1, u2])
        }
        // curl's -O keeps the URL's name; URLs past the last name are named after themselves.
        var plan = try Self.plan(["-o", "a", u1, "-O", u2, "-o", "c", u3, "https://e.com/4.bin"])
        #expect(plan.jobs.map(\.name) == ["a", "2.bin", "c", "4.bin"])
        // Relative to --dir; a folder takes the URL under its own name; a path stays a path.
        plan = try Self.plan(["-d", "dl", "-o", "sub/", u1, "-o", "x/b.bin", u2])
        #expect(plan.jobs.map(\.file.path) == ["/work/here/dl/sub/1.bin", "/work/here/dl/x/b.bin"])
        // The names are the user's: --content-disposition does not rename them.
        plan = try Self.plan(["--content-disposition", "-o", "a", u1, "-o", "b", u2, u3])
        #expect(plan.jobs.map(\.namedByServer) == [false, false, true])
        // One -o keeps dl's meanings: the file of one URL, the folder of several.
        #expect(try Self.plan(["-o", "a", u1]).jobs.map(\.file.path) == ["/work/here/a"])
        #expect(
            try Self.plan(["-o", "a", u1, u2]).jobs.map(\.file.path) == ["/work/here/a/1.bin", "/work/here/a/2.bin"])
    }

    @Test(arguments: [
        (["-o", "a", "-o", "b", url], "2 names (-o, -O) for 1 URL: each name pairs with one URL, in order"),
        (
            ["-o", "a", "-o", "b", url, "-i", "list"],
            "several -o names pair with the URLs of the command line, not with -i's: name a URL of an input file"
                + " with an indented line 'out=NAME' after it"
        ),
        (
            ["-o", "a", "https://e.com/f[1-3]", "-o", "b", url],
            "-o a pairs with 'https://e.com/f[1-3]', which makes 3 URLs: put #1 in the name for the text of its"
                + " first glob"
        ),
        (["-o", "f#3", "https://e.com/[1-2]{a,b}"], "'f#3' names glob #3, but the URL has 2"),
        (["-o", "-", url, "-o", "b", url], "-o - (standard output) takes one URL, not a place among several -o"),
        (
            ["-O", "f.bin", "-o", "a", url, "-o", "b", url],
            "-O (--output-document) takes one URL, not 2; use -d DIR for several"
        ),
    ])
    func pairsThatCannotBeAreUsageErrors(_ arguments: [String], _ message: String) {
        #expect(Self.error { _ = try Self.plan(arguments) } == message)
    }

    // MARK: - Globs

    @Test(arguments: [
        ("f[1-3].bin", ["f1.bin", "f2.bin", "f3.bin"]),
        ("[01-10]", ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]),
        ("[8-10]", ["8", "9", "10"]),
        ("[001-3]", ["001", "002", "003"]),
        ("[0-10:5]", ["0", "5", "10"]),
        ("[a-c]", ["a", "b", "c"]),
        ("[X-Z]", ["X", "Y", "Z"]),
        ("[a-e:2]", ["a", "c", "e"]),
        ("{a,bb,}", ["a", "bb", ""]),
        ("x{a,b}[1-2]", ["xa1", "xa2", "xb1", "xb2"]),
        ("\\[1-2\\]\\{a\\}", ["[1-2]{a}"]),
        ("http://[::1]:80/f[1-2]", ["http://[::1]:80/f1", "http://[::1]:80/f2"]),
        ("http://u@[::1]/f", ["http://u@[::1]/f"]),
        ("plain", ["plain"]),
    ])
    func globsExpandAsCurls(_ text: String, _ expected: [String]) throws {
        #expect(try URLGlob(text).expanded().map(\.url) == expected)
    }

    @Test func theCapturesNameTheFiles() throws {
        let glob = try URLGlob("https://e.com/{a,b}/[1-2].bin")
        #expect(glob.globCount == 2)
        #expect(glob.expanded().map(\.captures) == [["a", "1"], ["a", "2"], ["b", "1"], ["b", "2"]])
        #expect(try URLGlob.name("#1-#2.bin", captures: ["a", "1"]) == "a-1.bin")
        #expect(try URLGlob.name("x#.bin#", captures: ["a"]) == "x#.bin#")
        let plan = try Self.plan(["-o", "n#2_#1.bin", "https://e.com/{a,b}/[01-2].bin"])
        #expect(plan.jobs.map(\.name) == ["n01_a.bin", "n02_a.bin", "n01_b.bin", "n02_b.bin"])
        #expect(plan.jobs.map(\.url.path) == ["/a/01.bin", "/a/02.bin", "/b/01.bin", "/b/02.bin"])
        // Pairs: the glob's names come from its own -o.
        let pairs = try Self.plan(["-o", "one", "https://e.com/x", "-o", "g#1", "https://e.com/[1-2]"])
        #expect(pairs.jobs.map(\.name) == ["one", "g1", "g2"])
        // Without a name, a glob's files are named after their URLs; one -o is their folder.
        #expect(try Self.plan(["https://e.com/f[1-2].bin"]).jobs.map(\.name) == ["f1.bin", "f2.bin"])
        #expect(
            try Self.plan(["-o", "out", "https://e.com/f[1-2].bin"]).jobs.map(\.file.path)
                == ["/work/here/out/f1.bin", "/work/here/out/f2.bin"])
        // A URL without a scheme is globbed too; -v says so once.
        let schemeless = try Self.plan(["127.0.0.1:8080/f{a,b}"])
        #expect(schemeless.jobs.map(\.url.absoluteString) == ["http://127.0.0.1:8080/fa", "http://127.0.0.1:8080/fb"])
        #expect(schemeless.notices == ["no scheme in '127.0.0.1:8080/f{a,b}': using http://127.0.0.1:8080/f{a,b}"])
        // -g: the brackets are the URL's.
        let off = try Self.plan(["-g", "https://e.com/f[1-2].bin"])
        #expect(off.jobs.count == 1)
        #expect(off.jobs[0].url.absoluteString.hasPrefix("https://e.com/f"))
    }

    @Test(arguments: [
        ("f[1-3", "bad glob in 'f[1-3': '[' without ']' (-g takes [ ] and { } as they are)"),
        ("f{a,b", "bad glob in 'f{a,b': '{' without '}' (-g takes [ ] and { } as they are)"),
        ("f]", "bad glob in 'f]': ']' without its opening (-g takes [ ] and { } as they are)"),
        ("f[3-1]", "bad glob in 'f[3-1]': [3-1] goes down: write it low to high (-g takes [ ] and { } as they are)"),
        (
            "f[a-5]",
            "bad glob in 'f[a-5]': [a-5] is not a range: [1-10], [01-10], [a-z] or [1-10:2] (-g takes [ ] and { } as"
                + " they are)"
        ),
        (
            "f[a-Z]",
            "bad glob in 'f[a-Z]': [a-Z] is not a range: [1-10], [01-10], [a-z] or [1-10:2] (-g takes [ ] and { } as"
                + " they are)"
        ),
        (
            "f[1-2:0]",
            "bad glob in 'f[1-2:0]': [1-2:0] is not a range: [1-10], [01-10], [a-z] or [1-10:2] (-g takes [ ] and { }"
                + " as they are)"
        ),
        (
            "f[]",
            "bad glob in 'f[]': [] is not a range: [1-10], [01-10], [a-z] or [1-10:2] (-g takes [ ] and { } as they"
                + " are)"
        ),
        ("f{a,[1-2]}", "bad glob in 'f{a,[1-2]}': globs cannot be nested (-g takes [ ] and { } as they are)"),
        (
            "f[1-100001]",
            "'f[1-100001]' makes more than 100000 URLs: give fewer, or take [ ] and { } as they are with -g"
        ),
        (
            "f[1-1000][1-1000]",
            "'f[1-1000][1-1000]' makes more than 100000 URLs: give fewer, or take [ ] and { } as they are with -g"
        ),
        (
            "f[0-9999999999]",
            "bad glob in 'f[0-9999999999]': [0-9999999999] is not a range: [1-10], [01-10], [a-z] or [1-10:2] (-g"
                + " takes [ ] and { } as they are)"
        ),
    ])
    func aBadOrHugeGlobIsAUsageError(_ text: String, _ message: String) {
        #expect(Self.error { _ = try URLGlob(text) } == message)
    }

    @Test func theBoundIsInclusive() throws {
        #expect(try URLGlob("[1-100000]").expanded().count == URLGlob.maximumCount)
        #expect(try URLGlob("[1-1000]{a,b}[1-50]").expanded().count == URLGlob.maximumCount)
    }
}
