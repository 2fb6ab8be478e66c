import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

#if canImport(Glibc)
    import Glibc
#endif

/// The parsers of `-n`/`--netrc-file` (curl's netrc format) and `-b`/`--cookie-jar` (the
/// Netscape cookie file, `Set-Cookie`), and RFC 6265's cookie matching: well-formed files, and
/// hostile ones that are skipped or refused, never a crash.
@Suite(.timeLimit(.minutes(1)))
struct DLNetrcCookieParsingTests {
    // MARK: - netrc

    @Test func netrcEntriesAcrossLinesWithQuotesCommentsAndMacros() {
        let netrc = Netrc(
            parsing: """
                # a comment: machine evil.example login no
                machine Example.com
                  login alice
                  password "pa ss\\"word\\\\"
                macdef init
                machine macro.example login inside password macro

                machine other.example login bob password x account ignored machine third.example
                login carol password "c"
                default login anon password guest
                """)
        #expect(
            netrc.machine(for: "example.com")
                == Netrc.Machine(host: "Example.com", login: "alice", password: "pa ss\"word\\"))
        #expect(netrc.machine(for: "OTHER.example")?.login == "bob")
        #expect(netrc.machine(for: "third.example")?.password == "c")
        // The macro's text is not an entry.
        #expect(netrc.machine(for: "macro.example")?.login == "anon")
        #expect(netrc.machine(for: "elsewhere.example") == Netrc.Machine(host: nil, login: "anon", password: "guest"))
        #expect(netrc.machine(for: "evil.example")?.login == "anon")
    }

    @Test func aNetrcWithoutADefaultHasNothingForOtherHostsAndMissingValuesEndTheEntry() {
        let netrc = Netrc(parsing: "machine a.example login alice password")
        #expect(netrc.machine(for: "a.example") == Netrc.Machine(host: "a.example", login: "alice", password: nil))
        #expect(netrc.machine(for: "b.example") == nil)
        #expect(Netrc(parsing: "machine").machines.isEmpty)
        #expect(Netrc(parsing: "machine a.example password only").machine(for: "a.example") == nil)
        #expect(Netrc(parsing: "login \"unclosed").machines.isEmpty)
    }

    @Test func hostileNetrcTextParsesWithoutACrash() {
        let huge = String(repeating: "x", count: 2_000_000)
        #expect(Netrc(parsing: "machine \(huge) login a password b").machine(for: huge)?.login == "a")
        var bytes: [UInt8] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
        _ = Netrc(parsing: String(decoding: bytes, as: UTF8.self))
        _ = Netrc(parsing: "macdef")
        _ = Netrc(parsing: "\"\\")
        _ = Netrc(parsing: String(repeating: "machine ", count: 100_000))
    }

    @Test func aNetrcFileOthersCanReadIsRefusedNamingChmod() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netrc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("netrc").path
        try Data("machine a.example login alice password pw\n".utf8).writeWithoutSync(to: URL(fileURLWithPath: path))
        for mode: mode_t in [0o644, 0o640, 0o604, 0o620, 0o602] {
            chmod(path, mode)
            #expect(throws: Netrc.Problem.self) { try Netrc.load(path, required: true) }
            do {
                _ = try Netrc.load(path, required: true)
            } catch {
                #expect(error.description.contains("chmod 600 \(path)"), "\(error)")
            }
        }
        chmod(path, 0o600)
        #expect(try Netrc.load(path, required: true).machine(for: "a.example")?.password == "pw")
        chmod(path, 0o400)
        #expect(try Netrc.load(path, required: true).machine(for: "a.example")?.password == "pw")
        // -n without ~/.netrc: nothing; --netrc-file without its file: an error naming it.
        let missing = directory.appendingPathComponent("missing").path
        #expect(try Netrc.load(missing, required: false).machines.isEmpty)
        #expect(throws: Netrc.Problem.self) { try Netrc.load(missing, required: true) }
        #expect(throws: Netrc.Problem.self) { try Netrc.load(directory.path, required: true) }
    }

    // MARK: - Options

    @Test func curlsCookieAndHeadOptionsParseAndWgetsBackgroundKeepsItsHint() throws {
        let options = try Options.parse([
            "-b", "jar.txt", "--cookie", "a=1; b=2", "--cookie-jar", "out.txt", "-nIS", "--netrc-file", "n",
            "--remove-on-error", "http://a.example/f",
        ])
        #expect(options.http.cookieSources == ["jar.txt", "a=1; b=2"] && options.http.cookieJar == "out.txt")
        #expect(options.http.usesDefaultNetrc && options.http.netrcFile == "n" && options.http.removesFailedFiles)
        #expect(options.http.headsOnly && options.http.showsServerResponse)
        func message(_ arguments: [String]) -> String {
            do {
                _ = try Options.parse(arguments)
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["--background", "u"]).contains("run dl in the background with your shell"))
        #expect(message(["--spider", "u"]).contains("dl -I asks for the response heads"))
    }

    // MARK: - Cookie files

    @Test func aNetscapeCookieFileAsCurlAndWgetWriteIt() {
        let cookies = Cookie.parseFile(
            """
            # Netscape HTTP Cookie File
            # https://curl.se/docs/http-cookies.html

            .example.com\tTRUE\t/\tFALSE\t0\tsession\tabc
            #HttpOnly_www.example.com\tFALSE\t/app\tTRUE\t4102444800\ttoken\tt=1
            example.org\tFALSE\t/\tFALSE\t4102444800\tempty\t\r
            """)
        #expect(
            cookies == [
                Cookie(
                    domain: "example.com", includesSubdomains: true, path: "/", isSecure: false, expires: nil,
                    name: "session", value: "abc"),
                Cookie(
                    domain: "www.example.com", includesSubdomains: false, path: "/app", isSecure: true,
                    expires: 4_102_444_800, name: "token", value: "t=1", isHTTPOnly: true),
                Cookie(
                    domain: "example.org", includesSubdomains: false, path: "/", isSecure: false,
                    expires: 4_102_444_800, name: "empty", value: ""),
            ])
        // wget's, with the port of the server.
        #expect(
            Cookie.parseFile("127.0.0.1:8765\tFALSE\t/\tFALSE\t0\tw\t1\n[::1]:80\tFALSE\t/\tFALSE\t0\tv6\t1\n")
                .map(\.domain) == ["127.0.0.1", "[::1]"])
        // Written and read again, the same cookies.
        #expect(Cookie.parseFile(Cookie.fileText(cookies)) == cookies)
        #expect(Cookie.fileText(cookies).hasPrefix("# Netscape HTTP Cookie File\n"))
    }

    @Test func hostileCookieFileLinesAreSkipped() {
        let long = String(repeating: "v", count: Cookie.maximumLineLength + 1)
        let text = """
            example.com\tFALSE\t/\tFALSE\t0\tok\t1
            example.com\tFALSE\t/\tFALSE\t0\tlong\t\(long)
            example.com\tFALSE\t/\tFALSE\tsoon\tnumber\t1
            example.com\tFALSE\t/\tFALSE\t-5\tnegative\t1
            example.com\tFALSE\t/
            \tFALSE\t/\tFALSE\t0\tnodomain\t1
            example.com\tFALSE\t/\tFALSE\t0\t\tnoname
            example.com\tFALSE\trelative\tFALSE\t0\tpath\t1
            example.com\tFALSE\t/\tFALSE\t0\ta\tb\tc\td
            \u{0}\u{1}\u{FFFD}
            """
        #expect(Cookie.parseFile(text).map(\.name) == ["ok"])
        var bytes: [UInt8] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
        _ = Cookie.parseFile(String(decoding: bytes, as: UTF8.self))
        #expect(Cookie.parseFile(String(repeating: "\t", count: 1_000_000)).isEmpty)
    }

    // MARK: - Matching (RFC 6265 5.4)

    @Test func cookiesMatchByDomainPathSecureAndExpiry() throws {
        let now: Int64 = 2_000_000_000
        func cookie(
            _ domain: String, subdomains: Bool = false, path: String = "/", secure: Bool = false, expires: Int64? = nil
        ) -> Cookie {
            Cookie(
                domain: domain, includesSubdomains: subdomains, path: path, isSecure: secure, expires: expires,
                name: "n", value: "v")
        }
        func url(_ text: String) -> URL { URL(string: text)! }
        #expect(cookie("example.com").matches(url("http://example.com/a"), at: now))
        #expect(!cookie("example.com").matches(url("http://www.example.com/a"), at: now))
        #expect(cookie("example.com", subdomains: true).matches(url("http://www.example.com/a"), at: now))
        #expect(!cookie("example.com", subdomains: true).matches(url("http://badexample.com/a"), at: now))
        #expect(!cookie("example.com", subdomains: true).matches(url("http://example.com.evil/a"), at: now))
        #expect(!cookie("0.0.1", subdomains: true).matches(url("http://127.0.0.1/"), at: now))
        #expect(cookie("docs", path: "/docs").matches(url("http://docs/docs"), at: now))
        #expect(cookie("docs", path: "/docs").matches(url("http://docs/docs/a.pdf"), at: now))
        #expect(!cookie("docs", path: "/docs").matches(url("http://docs/docsx"), at: now))
        #expect(cookie("docs", path: "/docs/").matches(url("http://docs/docs/a"), at: now))
        #expect(!cookie("docs", path: "/docs").matches(url("http://docs/"), at: now))
        #expect(!cookie("a.example", secure: true).matches(url("http://a.example/"), at: now))
        #expect(cookie("a.example", secure: true).matches(url("https://a.example/"), at: now))
        #expect(!cookie("a.example", expires: now).matches(url("http://a.example/"), at: now))
        #expect(cookie("a.example", expires: now + 1).matches(url("http://a.example/"), at: now))
    }

    @Test func setCookieAttributesAsRFC6265ReadsThem() throws {
        let now: Int64 = 2_000_000_000
        let url = URL(string: "https://www.example.com/docs/file.pdf")!
        let plain = try #require(Cookie.parse(setCookie: "id=a3f; HttpOnly", from: url, at: now))
        #expect(
            plain
                == Cookie(
                    domain: "www.example.com", includesSubdomains: false, path: "/docs", isSecure: false,
                    expires: nil, name: "id", value: "a3f", isHTTPOnly: true))
        let full = try #require(
            Cookie.parse(
                setCookie: "lang=en-US; Domain=.Example.com; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Secure",
                from: url, at: now))
        #expect(full.domain == "example.com" && full.includesSubdomains && full.path == "/" && full.isSecure)
        #expect(full.expires == 4_116_219_494)
        // Max-Age wins over Expires; 0 or less ends it.
        #expect(
            Cookie.parse(setCookie: "a=1; Max-Age=60; Expires=Wed, 09 Jun 2100 10:18:14 GMT", from: url, at: now)?
                .expires == now + 60)
        #expect(Cookie.parse(setCookie: "a=1; Max-Age=0", from: url, at: now)?.hasExpired(at: now) == true)
        // Another site's domain, a top-level one, no name: ignored.
        #expect(Cookie.parse(setCookie: "a=1; Domain=evil.example", from: url, at: now) == nil)
        #expect(Cookie.parse(setCookie: "a=1; Domain=com", from: url, at: now) == nil)
        #expect(Cookie.parse(setCookie: "=1", from: url, at: now) == nil)
        #expect(Cookie.parse(setCookie: "novalue", from: url, at: now) == nil)
        #expect(Cookie.parse(setCookie: "a=1\tb", from: url, at: now) == nil)
        #expect(Cookie.parse(setCookie: "a=1; Path=relative", from: url, at: now)?.path == "/docs")
        #expect(Cookie.parse(setCookie: "a=1; Max-Age=9223372036854775807", from: url, at: now) != nil)
        #expect(Cookie.parse(setCookie: String(repeating: "a", count: 100_000) + "=1", from: url, at: now) == nil)
    }

    @Test func setCookieHeadersJoinedByATransportComeApart() {
        #expect(
            Cookie.splitSetCookie("a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/, b=2, c=3; Secure")
                == ["a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/", "b=2", "c=3; Secure"])
        #expect(Cookie.splitSetCookie("a=x,y") == ["a=x,y"])
        let url = URL(string: "http://a.example/")!
        #expect(Cookie.splitSetCookie(", ,").compactMap { Cookie.parse(setCookie: $0, from: url, at: 0) }.isEmpty)
    }

    @Test func theJarSendsMatchingCookiesLongestPathFirstAndKeepsWhatServersSet() {
        let now: Int64 = 2_000_000_000
        let jar = CookieJar(
            cookies: [
                Cookie(
                    domain: "a.example", includesSubdomains: false, path: "/", isSecure: false, expires: nil,
                    name: "root", value: "1"),
                Cookie(
                    domain: "a.example", includesSubdomains: false, path: "/docs", isSecure: false, expires: nil,
                    name: "docs", value: "2"),
            ], literal: "given=1", literalHosts: ["a.example"], now: { now })
        #expect(jar.header(for: URL(string: "http://a.example/docs/x")!) == "given=1; docs=2; root=1")
        #expect(jar.header(for: URL(string: "http://b.example/docs/x")!) == nil)
        jar.receive(
            ServerResponse(
                url: URL(string: "http://a.example/docs/x"), statusCode: 200,
                headers: ["Set-Cookie": "root=9; Path=/, docs=gone; Path=/docs; Max-Age=0"]))
        #expect(jar.header(for: URL(string: "http://a.example/docs/x")!) == "given=1; root=9")
        #expect(jar.current.map(\.name) == ["root"])
    }
}
