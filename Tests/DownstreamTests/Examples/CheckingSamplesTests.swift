import Downstream
import DownstreamTesting
import Foundation
import Testing

/// What CheckingWhatArrives.md shows, run against the loopback server (the article's own text is
/// type-checked by `.ci/check-samples`).
@Suite(.timeLimit(.minutes(2)))
struct CheckingSamplesTests {
    struct NotAZipArchive: Error {}

    actor Library {
        var files: [URL] = []
        var failures: [URL?] = []
        func add(_ file: URL) { files.append(file) }
        func markFailed(_ url: URL?, _ error: DownloadError) { failures.append(url) }
    }

    actor Tokens {
        func current() -> String? { "fresh" }
    }

    actor Passwords {
        func password(for realm: String?) -> String? { realm == "downstream" ? "lovelace" : nil }
    }

    // Expect a digest.
    func verifiedISO(manager: DownloadManager, isoURL: URL, publishedSHA256: String, downloads: URL) async throws
        -> String
    {
        var printed = ""
        var request = DownloadRequest(url: isoURL, to: .directory(downloads))
        request.expectedDigest = .sha256(publishedSHA256)
        let download = await manager.download(request)
        do {
            let iso = try await download.fileURL
            print("verified", iso.path)
            printed = "verified"
        } catch let error as DownloadError where error.kind == .integrityCheckFailed {
            print(error.reason)  // expected SHA-256 …, got …
            printed = error.reason
        }
        return printed
    }

    // Validate the response and the file.
    func validatedArchive(manager: DownloadManager, archiveURL: URL, downloads: URL) async throws -> URL {
        var request = DownloadRequest(url: archiveURL, to: .directory(downloads))
        request.checks = [
            .statusCode(200..<300),
            .contentType(["application/zip", "application/octet-stream"]),
            ResponseCheck { response, file in
                let handle = try FileHandle(forReadingFrom: file)
                defer { try? handle.close() }
                guard try handle.read(upToCount: 2) == Data("PK".utf8) else { throw NotAZipArchive() }
            },
        ]
        let archive = try await manager.download(request).fileURL
        return archive
    }

    // Handle the end without waiting for it.
    func handledEpisode(manager: DownloadManager, episodeURL: URL, episodes: URL, library: Library) async {
        var request = DownloadRequest(url: episodeURL, to: .directory(episodes))
        request.checks = request.usualChecks
        await manager.download(request)
            .response { response in
                switch response.result {
                case .success(let file): await library.add(file)
                case .failure(let error): await library.markFailed(response.request.url, error)
                }
            }
    }

    // Redirects and credentials.
    func configuration(tokens: Tokens) -> DownloadManager.Configuration {
        let configuration = DownloadManager.Configuration(identifier: "com.example.app") {
            $0.redirects.maximumCount = 5
            $0.redirects.handler = { redirect in
                redirect.request.url?.host == "cdn.example.com" ? .follow : .refuse("not one of our mirrors")
            }
            $0.authentication.handler = { challenge in
                guard challenge.previousFailureCount == 0, let token = await tokens.current() else { return .fail }
                return .authorization("Bearer \(token)")
            }
            $0.eventMonitors = [ConsoleEventLogger()]
        }
        return configuration
    }

    // A user name and password.
    func passwordConfiguration(passwords: Passwords) -> DownloadManager.Configuration {
        let configuration = DownloadManager.Configuration(identifier: "com.example.app") {
            $0.authentication.handler = { challenge in
                // Digest when the server offers it, else Basic: nil when it offers neither.
                guard challenge.previousFailureCount == 0, challenge.credentialScheme != nil,
                    let password = await passwords.password(for: challenge.realm)
                else { return .fail }
                return .useCredential(user: "ada", password: password)
            }
        }
        return configuration
    }

    @Test func theDigestSampleVerifiesAndReportsAMismatch() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 770)
            let url = fixture.serve("/image.iso", body)
            let good = try Digest(.sha256, ofFileAt: try Self.write(body, to: fixture.file("reference")))
            #expect(
                try await verifiedISO(
                    manager: fixture.manager, isoURL: url, publishedSHA256: good.hexValue,
                    downloads: fixture.file("good")) == "verified")
            let reason = try await verifiedISO(
                manager: fixture.manager, isoURL: url, publishedSHA256: String(repeating: "0", count: 64),
                downloads: fixture.file("bad"))
            #expect(reason == "expected SHA-256 \(String(repeating: "0", count: 64)), got \(good.hexValue)")
        }
    }

    @Test func theValidationSampleDeliversAZipAndRefusesTheRest() async throws {
        try await withFixture { fixture in
            let zip = Body.data(Data("PK\u{3}\u{4} not really a zip".utf8))
            let zipURL = fixture.serve("/a.zip", zip) { $0.contentType = "application/zip" }
            let textURL = fixture.serve("/b.zip", .data(Data("hello".utf8))) { $0.contentType = "application/zip" }
            try zip.expectMatches(
                try await validatedArchive(manager: fixture.manager, archiveURL: zipURL, downloads: fixture.directory))
            let error = try await #require(throws: DownloadError.self) {
                try await validatedArchive(manager: fixture.manager, archiveURL: textURL, downloads: fixture.directory)
            }
            #expect(error.kind == .validationFailed)
            #expect(fixture.listing() == ["a.zip"])
        }
    }

    @Test func theHandlerSampleAddsTheEpisode() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/episode.mp3", .pattern(count: 5_000, seed: 771))
            let library = Library()
            await handledEpisode(
                manager: fixture.manager, episodeURL: url, episodes: fixture.directory, library: library)
            // Handlers run in order: once a handler added after the sample's runs, the sample's has.
            let download = try #require(await fixture.manager.downloads.first)
            await withCheckedContinuation { continuation in
                download.response { _ in continuation.resume() }
            }
            #expect(await library.files == [fixture.file("episode.mp3")])
            #expect(await library.failures.isEmpty)
        }
    }

    @Test func theConfigurationSampleAnswersChallengesAndRefusesStrangeMirrors() async throws {
        let sample = configuration(tokens: Tokens())
        try await withFixture({ test in
            test.redirects = sample.redirects
            test.authentication = sample.authentication
        }) { fixture in
            let body = Body.pattern(count: 1_000, seed: 772)
            let url = fixture.serve("/private.bin", body) { $0.requiredAuthorization = "Bearer fresh" }
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .directory(fixture.directory)))
            var route = Route(body: body)
            route.redirect = (302, "/elsewhere")
            fixture.server.setRoute("/moved", route)
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.downloadFile(
                    from: fixture.server.url("/moved"), to: .directory(fixture.directory))
            }
            #expect(error.reason == "not one of our mirrors")
        }
    }

    @Test func thePasswordSampleAnswersDigestAndLeavesNTLMUnanswered() async throws {
        let sample = passwordConfiguration(passwords: Passwords())
        try await withFixture({ $0.authentication = sample.authentication }) { fixture in
            let body = Body.pattern(count: 1_000, seed: 773)
            let url = fixture.serve("/digest.bin", body) {
                $0.requiredDigest = DigestAuthentication(user: "ada", password: "lovelace")
                $0.requiredDigest?.otherChallenges = ["Basic realm=\"downstream\""]
            }
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .directory(fixture.directory)))
            let sent = fixture.server.requests("/digest.bin").map { $0.header("Authorization") }
            #expect(sent.count == 2 && sent[1]?.hasPrefix("Digest ") == true)
            let ntlm = fixture.serve("/ntlm.bin", body) {
                $0.faults = [.status(401, headers: ["WWW-Authenticate": "NTLM"])]
            }
            let error = try await #require(throws: DownloadError.self) {
                try await fixture.manager.downloadFile(from: ntlm, to: .directory(fixture.directory))
            }
            #expect(error.kind == .httpStatus && error.statusCode == 401)
        }
    }

    static func write(_ body: Body, to url: URL) throws -> URL {
        try body.bytes(0..<body.count).writeWithoutSync(to: url)
        return url
    }
}
