@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Secrets stay in memory and off the screen: dl's store keeps no `-H` credentials (a rerun
/// passes them again), its list of saved files keeps no URL and is its owner's only, and no
/// line it prints (plain, `--json`, `-v`) shows a URL's password or token; what a server sends is
/// printed escaped.
@Suite(.timeLimit(.minutes(2)))
struct DLSecretsTests {
    static let token = "Bearer s3cret-token"

    /// Every byte of dl's store, as text.
    static func storeText(_ fixture: Fixture) -> String {
        let store = DLChild.store(fixture)
        let files = FileManager.default.enumerator(atPath: store.path)?.allObjects as? [String] ?? []
        return files.compactMap { try? Data(contentsOf: store.appendingPathComponent($0)) }
            .map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    @Test func ctrlCKeepsNoCredentialOfTheCommandAndTheRerunPassesItAgain() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 811)
            let url = fixture.serve("/private.bin", body) {
                $0.requiredAuthorization = Self.token
                $0.faults = [.holdAfter(1_000_000)]
            }
            let arguments = [
                "--progress-interval", "0", "-H", "Authorization: \(Self.token)", "-H", "Cookie: c=cookie-secret",
                url.absoluteString,
            ]
            let first = try DLChild(arguments, in: fixture)
            defer { first.stop() }
            #expect(await first.output.wait(for: "private.bin  33%"))
            first.interrupt()
            #expect(await first.exitStatus() == 130)
            let stored = Self.storeText(fixture)
            #expect(!stored.isEmpty)
            #expect(!stored.contains("s3cret-token"))
            #expect(!stored.contains("cookie-secret"))
            fixture.server.release("/private.bin")

            let (status, output, errors) = try await DLChild.run(arguments, in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            try body.expectMatches(fixture.file("private.bin"))
            #expect(fixture.server.requests("/private.bin").allSatisfy { $0.header("Authorization") == Self.token })
            // The rerun continued the bytes kept: a range.
            #expect(fixture.server.requests("/private.bin").last?.rangeStart ?? 0 > 0)
        }
    }

    @Test(arguments: [[], ["--json"], ["-v"]])
    func noLineShowsAURLsPasswordOrToken(_ mode: [String]) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 10_000, seed: 812)
            let served = fixture.serve("/file.bin", body)
            var components = try #require(URLComponents(url: served, resolvingAgainstBaseURL: false))
            components.user = "alice"
            components.password = "pa55word"
            components.query = "token=t0ken-value&X-Amz-Signature=s1gnature&part=2"
            let url = try #require(components.url)
            let (status, output, errors) = try await DLChild.run(
                mode + ["--progress-interval", "0", "-o", "file.bin", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            let printed = output + errors
            for secret in ["pa55word", "t0ken-value", "s1gnature", "alice"] {
                #expect(!printed.contains(secret), "\(secret) in \(printed)")
            }
            #expect(printed.contains("token=***"), "\(printed)")
            #expect(printed.contains("part=2"), "\(printed)")

            // The list of saved files: no URL, and its owner's only.
            let saved = DLChild.store(fixture).appendingPathComponent("saved.json")
            let list = String(decoding: try Data(contentsOf: saved), as: UTF8.self)
            #expect(!list.contains("127.0.0.1"))
            #expect(!list.contains("t0ken-value"))
            var info = stat()
            #expect(stat(saved.path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)

            // The same command again finds the file it saved, by its URL's key.
            let again = try await DLChild.run(["-o", "file.bin", url.absoluteString], in: fixture)
            #expect(again.status == 0, "\(again.output)\(again.errors)")
            #expect(again.output.contains("kept \(fixture.file("file.bin").path) (saved by an earlier run)"))
        }
    }

    @Test func whatAServerSaysIsPrintedEscaped() async throws {
        try await withFixture(startsManager: false) { fixture in
            // A title change, a screen clear and a bell, in a header and in a status's reason.
            let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}"
            let url = fixture.serve("/hostile.bin", .pattern(count: 1_000, seed: 813)) {
                $0.extraHeaders = ["X-Hostile": hostile]
            }
            let (status, output, errors) = try await DLChild.run(
                ["-v", "-o", "hostile.bin", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            let printed = output + errors
            #expect(!printed.contains("\u{1B}"))
            #expect(!printed.contains("\u{07}"))
            #expect(!printed.contains("\u{202E}"))
            #expect(printed.contains("X-Hostile: \\u{1B}]0;owned\\u{7}\\u{1B}[2J\\u{202E}"), "\(printed)")
        }
    }
}
