@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

#if canImport(Glibc)
    import Glibc
#endif

/// curl's and wget's HTTP options, run as a user runs `dl`, on each transport: `-S` (response
/// heads on standard error), `-n`/`--netrc-file` (credentials by host), `-b`/`--cookie-jar`
/// (cookies), `--remove-on-error`.
@Suite(.timeLimit(.minutes(2)))
struct DLHTTPOptionsTests {
    static let transports: [String] =
        TransportUnderTest.isLibcurlAvailable ? ["libcurl", "urlsession"] : ["urlsession"]

    /// Serves `body` at `path` with `headers`, its first answer a `302` back to itself with
    /// `redirectHeaders` besides `Location`.
    static func serveRedirectingOnce(
        _ path: String, _ body: Body, in fixture: Fixture, redirectHeaders: [String: String],
        headers: [String: String]
    ) -> URL {
        let url = fixture.server.url(path)
        fixture.serve(path, body) {
            $0.faults = [.status(302, headers: redirectHeaders.merging(["Location": url.absoluteString]) { $1 })]
            $0.extraHeaders = $0.extraHeaders.merging(headers) { $1 }
        }
        return url
    }

    @Test(arguments: transports)
    func serverResponseHeadsGoToStandardErrorWithTheFileSaved(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 30_000, seed: 4501)
            let url = Self.serveRedirectingOnce(
                "/heads.bin", body, in: fixture, redirectHeaders: ["Set-Cookie": "secret=s3cr3t"],
                headers: ["X-Served-By": "test"])
            let environment = ["DOWNSTREAM_TRANSPORT": transport]
            let run = try await DLChild.run(
                ["-S", "-o", "f.bin", url.absoluteString], in: fixture, environment: environment)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            try body.expectMatches(fixture.file("f.bin"))
            #expect(run.errors.contains("f.bin < HTTP 302 \(url.absoluteString)\n"), "\(run.errors)")
            #expect(run.errors.contains("f.bin < Location: \(url.absoluteString)\n"), "\(run.errors)")
            // 200, or 206 for a transport that asks in ranges.
            #expect(run.errors.contains("f.bin < HTTP 20"), "\(run.errors)")
            #expect(run.errors.contains("f.bin < Content-Length: 30000\n"), "\(run.errors)")
            #expect(run.errors.contains("f.bin < X-Served-By: test\n"), "\(run.errors)")
            // Credentials are never printed; the requests are -v's, not -S's.
            #expect(run.errors.contains("f.bin < Set-Cookie: (hidden)\n"), "\(run.errors)")
            #expect(!run.errors.contains("s3cr3t") && !run.errors.contains("> GET"), "\(run.errors)")
            #expect(!run.output.contains("< HTTP"), "\(run.output)")

            // Quiet (curl's -sS): no heads, only failures.
            let quiet = try await DLChild.run(
                ["-qS", "-o", "g.bin", url.absoluteString], in: fixture, environment: environment)
            #expect(quiet.status == 0, "\(quiet.output)\(quiet.errors)")
            #expect(quiet.output.isEmpty && quiet.errors.isEmpty, "\(quiet.output)\(quiet.errors)")
            try body.expectMatches(fixture.file("g.bin"))
        }
    }

    @Test(arguments: transports)
    func headPrintsEachResponseHeadAndDownloadsNothing(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 30_000, seed: 4506)
            let url = fixture.serve("/head/a.bin", body) { $0.extraHeaders["Set-Cookie"] = "secret=s3cr3t" }
            let hop = fixture.serve("/hop", body) { $0.redirect = (303, url.absoluteString) }
            let missing = fixture.serve("/missing.bin", body) { $0.faults = [.status(404, headers: [:])] }
            let environment = ["DOWNSTREAM_TRANSPORT": transport]

            let run = try await DLChild.run(["-I", url.absoluteString], in: fixture, environment: environment)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(run.output.hasPrefix("HTTP 200 "), "\(run.output)")
            #expect(run.output.contains("\nContent-Length: 30000\n"), "\(run.output)")
            #expect(run.output.contains("\nSet-Cookie: (hidden)\n") && !run.output.contains("s3cr3t"), "\(run.output)")
            #expect(run.output.hasSuffix("\n\n") && run.errors.isEmpty, "\(run.output)\(run.errors)")
            #expect(fixture.server.requests("/head/a.bin").map(\.method) == ["HEAD"])
            #expect(fixture.server.requests("/head/a.bin").map(\.bodyBytesSent) == [0])
            #expect(fixture.listing().isEmpty, "\(fixture.listing())")
            #expect(DLChild.storedDownloads(fixture).isEmpty, "\(DLChild.storedDownloads(fixture))")

            // Through a redirect (a 303 too stays a HEAD): each head, as curl -IL prints them.
            let redirected = try await DLChild.run(["-I", hop.absoluteString], in: fixture, environment: environment)
            #expect(redirected.status == 0, "\(redirected.output)\(redirected.errors)")
            let heads = redirected.output.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(heads.count == 2, "\(redirected.output)")
            #expect(heads.first?.hasPrefix("HTTP 303 ") == true, "\(redirected.output)")
            #expect(heads.first?.contains("\nLocation: \(url.absoluteString)") == true, "\(redirected.output)")
            #expect(heads.last?.hasPrefix("HTTP 200 ") == true, "\(redirected.output)")
            #expect(fixture.server.requests("/head/a.bin").map(\.method) == ["HEAD", "HEAD"])
            #expect(fixture.server.requests("/hop").map(\.method) == ["HEAD"])

            // A 404 is printed, and is a failure.
            let failed = try await DLChild.run(["-I", missing.absoluteString], in: fixture, environment: environment)
            #expect(failed.status == 8, "\(failed.output)\(failed.errors)")
            #expect(failed.output.hasPrefix("HTTP 404 "), "\(failed.output)")
            #expect(failed.errors.hasPrefix("failed missing.bin: the server answered HTTP 404"), "\(failed.errors)")
            #expect(fixture.listing().isEmpty, "\(fixture.listing())")
            #expect(DLChild.storedDownloads(fixture).isEmpty, "\(DLChild.storedDownloads(fixture))")
        }
    }

    /// `-I -u` answers a 401 as a download does (curl's `-I -u --digest`): both heads are printed,
    /// the credentials hidden, and the last one is the answer.
    @Test(arguments: transports)
    func headAnswersAChallengeWithTheCredentials(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/head/secret.bin", Body.pattern(count: 30_000, seed: 4507)) {
                $0.requiredDigest = DigestAuthentication(user: "alice", password: "s3:cret")
            }
            let run = try await DLChild.run(
                ["-I", "-u", "alice:s3:cret", url.absoluteString], in: fixture,
                environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            let heads = run.output.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(heads.map { $0.prefix(8) } == ["HTTP 401", "HTTP 200"], "\(run.output)")
            #expect(heads.last?.contains("\nContent-Length: 30000") == true, "\(run.output)")
            #expect(!run.output.contains("s3:cret"), "\(run.output)")
            #expect(fixture.server.requests("/head/secret.bin").map(\.method) == ["HEAD", "HEAD"])
        }
    }

    /// Writes `text` to the fixture's file `name` with `mode`; returns its path.
    static func write(_ text: String, to name: String, mode: mode_t, in fixture: Fixture) throws -> String {
        let path = fixture.file(name).path
        try Data(text.utf8).writeWithoutSync(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    @Test(arguments: transports)
    func theNetrcAnswersItsHostOnly(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 20_000, seed: 4502)
            let basic = "Basic " + Data("alice:p w\"d".utf8).base64EncodedString()
            let url = fixture.serve("/private/a.bin", body) { $0.requiredAuthorization = basic }
            let port = try #require(url.port)
            // The same server by another name: a host the netrc has nothing for.
            let otherHost = try #require(URL(string: "http://localhost:\(port)/private/a.bin"))
            _ = try Self.write(
                "machine 127.0.0.1\n  login alice\n  password \"p w\\\"d\"\nmachine localhost.example login x password y\n",
                to: ".netrc", mode: 0o600, in: fixture)
            let environment = ["DOWNSTREAM_TRANSPORT": transport, "HOME": fixture.directory.path]

            let run = try await DLChild.run(
                ["-n", "-v", "-o", "a.bin", url.absoluteString], in: fixture, environment: environment)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            try body.expectMatches(fixture.file("a.bin"))
            #expect(fixture.server.requests("/private/a.bin").map { $0.header("Authorization") } == [nil, basic])
            #expect(!(run.output + run.errors).contains("p w") && !(run.output + run.errors).contains(basic))

            let other = try await DLChild.run(
                ["-n", "-o", "b.bin", otherHost.absoluteString], in: fixture, environment: environment)
            #expect(other.status == 6, "\(other.output)\(other.errors)")
            #expect(fixture.server.requests("/private/a.bin").compactMap { $0.header("Authorization") } == [basic])

            // -u wins over the netrc.
            let user = try await DLChild.run(
                ["-n", "-u", "bob:wrong", "-o", "c.bin", url.absoluteString], in: fixture, environment: environment)
            #expect(user.status == 6, "\(user.output)\(user.errors)")

            // A default entry goes to the hosts of the URLs given, not to where a redirect leads.
            _ = try Self.write("default login alice password \"p w\\\"d\"\n", to: "netrc", mode: 0o600, in: fixture)
            let hop = fixture.serve("/hop", body) { $0.redirect = (302, otherHost.absoluteString) }
            let before = fixture.server.requests("/private/a.bin").count
            let redirected = try await DLChild.run(
                ["--netrc-file", "netrc", "-o", "d.bin", hop.absoluteString], in: fixture, environment: environment)
            #expect(redirected.status == 6, "\(redirected.output)\(redirected.errors)")
            let sent = fixture.server.requests("/private/a.bin").dropFirst(before).map { $0.header("Authorization") }
            #expect(!sent.isEmpty && sent.allSatisfy { $0 == nil }, "\(sent)")
        }
    }

    @Test func aNetrcOthersCanReadIsRefusedBeforeAnyRequest() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/private/a.bin", Body.pattern(count: 1_000, seed: 4503))
            let path = try Self.write(
                "machine 127.0.0.1 login alice password pw\n", to: "netrc", mode: 0o644, in: fixture)
            let run = try await DLChild.run(["--netrc-file", "netrc", url.absoluteString], in: fixture)
            #expect(run.status == 3, "\(run.output)\(run.errors)")
            #expect(
                run.errors
                    == "dl: the netrc file netrc can be read or changed by other users, and it holds passwords:"
                    + " make it yours alone with chmod 600 netrc\n", "\(run.errors)")
            #expect(fixture.server.requests("/private/a.bin").isEmpty)
            #expect(!run.errors.contains("pw"))
            // -n reads $HOME/.netrc, and refuses it the same way.
            try FileManager.default.moveItem(atPath: path, toPath: fixture.file(".netrc").path)
            let home = try await DLChild.run(
                ["-n", url.absoluteString], in: fixture, environment: ["HOME": fixture.directory.path])
            #expect(home.status == 3, "\(home.output)\(home.errors)")
            #expect(home.errors.contains("chmod 600 \(fixture.file(".netrc").path)"), "\(home.errors)")
            #expect(fixture.server.requests("/private/a.bin").isEmpty)
        }
    }

    @Test(arguments: transports)
    func cookiesGoWithTheRequestsTheyMatchAndTheJarKeepsWhatServersSet(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 20_000, seed: 4504)
            let url = Self.serveRedirectingOnce(
                "/docs/a.bin", body, in: fixture, redirectHeaders: ["Set-Cookie": "hop=1; Path=/docs"],
                headers: ["Set-Cookie": "final=2; Max-Age=3600; HttpOnly"])
            let file = """
                # Netscape HTTP Cookie File
                127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc
                127.0.0.1\tFALSE\t/docs\tFALSE\t4102444800\tdocs\tyes
                127.0.0.1\tFALSE\t/other\tFALSE\t0\tother\tno
                127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure\tno
                127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tno
                other.example\tTRUE\t/\tFALSE\t0\tforeign\tno
                """
            _ = try Self.write(file, to: "cookies.txt", mode: 0o600, in: fixture)
            let run = try await DLChild.run(
                ["-b", "cookies.txt", "--cookie-jar", "jar.txt", "-o", "a.bin", url.absoluteString], in: fixture,
                environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            try body.expectMatches(fixture.file("a.bin"))
            let sent = fixture.server.requests("/docs/a.bin").map { $0.header("Cookie") }
            // The redirect's cookie goes with the request it leads to.
            #expect(sent == ["docs=yes; session=abc", "docs=yes; hop=1; session=abc"], "\(sent)")

            let jar = try String(contentsOf: fixture.file("jar.txt"), encoding: .utf8)
            #expect(jar.hasPrefix("# Netscape HTTP Cookie File\n"), "\(jar)")
            let cookies = Cookie.parseFile(jar)
            #expect(
                Set(cookies.map(\.name)) == ["session", "docs", "other", "secure", "foreign", "hop", "final"],
                "\(jar)")
            #expect(cookies.first { $0.name == "final" }?.isHTTPOnly == true)
            #expect(cookies.first { $0.name == "hop" }?.path == "/docs")
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.file("jar.txt").path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(!fixture.listing().contains { $0.hasPrefix("jar.txt.") })

            // -b NAME=VALUE: sent as it is.
            let literal = try await DLChild.run(
                ["-b", "k=v; k2=v2", "-o", "b.bin", url.absoluteString], in: fixture,
                environment: ["DOWNSTREAM_TRANSPORT": transport])
            #expect(literal.status == 0, "\(literal.output)\(literal.errors)")
            #expect(fixture.server.requests("/docs/a.bin").last?.header("Cookie") == "k=v; k2=v2")
        }
    }

    @Test(arguments: transports)
    func removeOnErrorKeepsNothingOfAFailedFile(_ transport: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 400_000, seed: 4505)
            let url = fixture.serve("/cut.bin", body) { $0.faults = [.closeAfter(150_000), .closeAfter(150_000)] }
            let environment = ["DOWNSTREAM_TRANSPORT": transport]
            // Without it, the bytes stay for the next run.
            let kept = try await DLChild.run(
                ["-t", "1", "-o", "kept.bin", url.absoluteString], in: fixture, environment: environment)
            #expect(kept.status == 4, "\(kept.output)\(kept.errors)")
            #expect(kept.errors.contains("kept: run the same command again to continue"), "\(kept.errors)")
            #expect(fixture.listing().contains { $0.hasPrefix("kept.bin") })
            #expect(DLChild.storedDownloads(fixture).count == 1, "\(DLChild.storedDownloads(fixture))")

            let removed = try await DLChild.run(
                ["-t", "1", "--remove-on-error", "-o", "removed.bin", url.absoluteString], in: fixture,
                environment: environment)
            #expect(removed.status == 4, "\(removed.output)\(removed.errors)")
            #expect(!removed.errors.contains("kept"), "\(removed.errors)")
            #expect(!fixture.listing().contains { $0.hasPrefix("removed.bin") }, "\(fixture.listing())")
            #expect(DLChild.storedDownloads(fixture).count == 1, "\(DLChild.storedDownloads(fixture))")
            // The next run starts it over: from the first byte.
            let again = try await DLChild.run(
                ["-o", "removed.bin", url.absoluteString], in: fixture, environment: environment)
            #expect(again.status == 0, "\(again.output)\(again.errors)")
            try body.expectMatches(fixture.file("removed.bin"))
            #expect((fixture.server.requests("/cut.bin").last?.rangeStart ?? 0) == 0)
        }
    }
}
