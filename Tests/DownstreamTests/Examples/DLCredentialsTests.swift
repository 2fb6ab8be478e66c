@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

#if canImport(Glibc)
    import Glibc
#endif

/// `-u USER[:PASSWORD]`, curl's and wget's: credentials for a server that asks, for the hosts of
/// the URLs given only; without a password, dl asks on the terminal, without echo.
@Suite(.timeLimit(.minutes(1)))
struct DLCredentialsTests {
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    @Test func theUserAndPasswordAnswerTheServersChallenge() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 40_000, seed: 2307)
            let url = fixture.serve("/private/report.pdf", body) {
                $0.requiredAuthorization = Self.basic("alice", "s3:cret")
            }
            let (status, output, errors) = try await DLChild.run(
                ["-u", "alice:s3:cret", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("report.pdf"))
            // The first request went without them (the server asked), the second with them.
            let sent = fixture.server.requests("/private/report.pdf").map { $0.header("Authorization") }
            #expect(sent == [nil, Self.basic("alice", "s3:cret")])

            let wrong = try await DLChild.run(
                ["-u", "alice:wrong", "-O", "wrong.pdf", url.absoluteString], in: fixture)
            #expect(wrong.status == 6, "\(wrong.output)\(wrong.errors)")
            #expect(wrong.errors.contains("HTTP 401"), "\(wrong.errors)")
        }
    }

    @Test func aServerThatAsksForDigestGetsDigestAndNeverTheBasicPassword() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 40_000, seed: 2309)
            let url = fixture.serve("/private/digest.pdf", body) {
                $0.requiredDigest = DigestAuthentication(user: "alice", password: "s3:cret")
                $0.requiredDigest?.algorithms = ["MD5", "SHA-256"]
            }
            let (status, output, errors) = try await DLChild.run(
                ["-u", "alice:s3:cret", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("digest.pdf"))
            let requests = fixture.server.requests("/private/digest.pdf")
            #expect(requests.map(\.status).first == 401 && requests.count == 2)
            #expect(requests.last.map { (200...206).contains($0.status) } == true)
            let sent = requests.map { $0.header("Authorization") }
            #expect(sent[0] == nil)
            #expect(sent[1]?.hasPrefix("Digest username=\"alice\"") == true, "\(sent)")
            #expect(sent[1]?.contains("algorithm=SHA-256") == true, "\(sent)")
            #expect(!sent.contains(Self.basic("alice", "s3:cret")))

            // A server that offers no scheme a password can go in: exit 6, nothing sent.
            let ntlm = fixture.serve("/private/ntlm.pdf", body) {
                $0.faults = [.status(401, headers: ["WWW-Authenticate": "NTLM"])]
            }
            let refused = try await DLChild.run(["-u", "alice:s3:cret", ntlm.absoluteString], in: fixture)
            #expect(refused.status == 6, "\(refused.output)\(refused.errors)")
            #expect(refused.errors.contains("NTLM"), "\(refused.errors)")
            #expect(fixture.server.requests("/private/ntlm.pdf").map { $0.header("Authorization") } == [nil])
        }
    }

    @Test func withoutAPasswordAndATerminalItSaysHowToGiveIt() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/private/a.bin", Body.pattern(count: 1_000, seed: 2308))
            let (status, _, errors) = try await DLChild.run(["-u", "alice", url.absoluteString], in: fixture)
            #expect(status == 2)
            #expect(errors.hasPrefix("dl: -u alice has no password and there is no terminal"), "\(errors)")
            #expect(fixture.server.requests("/private/a.bin").isEmpty)
        }
    }

    @Test func credentialsGoOnlyToTheHostsOfTheURLsGiven() async throws {
        let credentials = try Credentials("alice:pw")
        let plan = try Plan.make(
            Options.parse(["-u", "alice:pw", "--mirror", "https://mirror.example/a", "https://Example.com/a"]),
            currentDirectory: URL(fileURLWithPath: "/tmp"))
        #expect(plan.credentials?.hosts == ["example.com", "mirror.example"])
        #expect(credentials.user == "alice" && credentials.password == "pw")
        let handler = try #require(plan.credentials).handler
        let id = DownloadID()
        func challenge(_ url: String, failures: Int = 0, status: Int = 401) -> AuthenticationChallenge {
            AuthenticationChallenge(
                downloadID: id, response: ServerResponse(url: URL(string: url)!, statusCode: status, headers: [:]),
                previousFailureCount: failures)
        }
        #expect(await handler(challenge("https://example.com/a")) == .useCredential(user: "alice", password: "pw"))
        #expect(await handler(challenge("https://redirected.example/a")) == .fail)
        #expect(await handler(challenge("https://example.com/a", failures: 1)) == .fail)
        #expect(await handler(challenge("https://example.com/a", status: 407)) == .fail)
        #expect(throws: UsageError.self) { try Credentials(":pw") }
    }

    @Test func aPasswordIsAskedForOnTheTerminalWithoutEcho() async throws {
        let terminal = try PseudoTerminal(width: 80, height: 24)
        let output = OutputReader(dup(terminal.parent))
        output.start()
        let side = terminal.child
        // The read blocks: on a thread of its own, never on one Swift concurrency shares.
        let asked = Task {
            try await onOwnThread {
                try Credentials.readPassword(from: side, prompt: "Enter host password for user 'alice': ")
            }
        }
        #expect(await output.wait(for: "Enter host password for user 'alice': "))
        _ = "s3cret\n".withCString { write(terminal.parent, $0, 7) }
        #expect(try await asked.value == "s3cret")
        var mode = termios()
        #expect(tcgetattr(side, &mode) == 0)
        #expect(mode.c_lflag & tcflag_t(ECHO) != 0, "echo is back on")
        // The reader's end comes once the terminal's other side is closed.
        close(terminal.child)
        close(terminal.parent)
        #expect(!(await output.text()).contains("s3cret"))
    }
}
