@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Validators run on the complete file before it is delivered; a refusal fails the download
/// with a typed error and delivers nothing.
@Suite(.timeLimit(.minutes(2)))
struct ValidationTests {
    struct NotAnArchive: Error, CustomStringConvertible {
        var description: String { "the file does not start with PK" }
    }

    @Test func passingValidatorsChainIntoTheFile() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 300_000, seed: 700)
            let url = fixture.serve("/ok.bin", body) { $0.contentType = "Application/Zip; charset=binary" }
            let seen = Locked<[String]>([])
            var request = DownloadRequest(url: url, to: .file(fixture.file("ok.bin")))
            request.checks = [
                .statusCode(200..<300), .contentType(["text/plain", "application/*"]),
                ResponseCheck { response, file in
                    // The custom check sees the response and the complete file, not yet delivered.
                    #expect(response.statusCode == 206)
                    #expect(response.value(forHTTPHeaderField: "content-range") == "bytes 0-299999/300000")
                    #expect(response.mediaType == "application/zip")
                    #expect(response.url == url)
                    #expect(fileLength(file) == body.count)
                    #expect(file != fixture.file("ok.bin"))
                    #expect(!FileManager.default.fileExists(atPath: fixture.file("ok.bin").path))
                    seen.withLock { $0.append("custom") }
                },
            ]
            let file = try await fixture.manager.download(request).fileURL
            try body.expectMatches(file)
            #expect(seen.withLock { $0 } == ["custom"])
        }
    }

    @Test func aRefusedStatusCodeFailsAndDeliversNothing() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 200_000, seed: 701)
            let url = fixture.serve("/status.bin", body)
            var request = DownloadRequest(url: url, to: .file(fixture.file("status.bin")))
            request.checks = [.statusCode([200])]
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .validationFailed)
            #expect(error.reason == "status code 206 is not acceptable")
            #expect(!error.isResumable)
            #expect(error.path == nil)
            #expect(fixture.listing().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: download.location.path))
        }
    }

    @Test func contentTypesAreMatchedWithWildcardsAndTheAcceptHeader() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_000, seed: 702)
            let html = fixture.serve("/page", body) { $0.contentType = "text/html; charset=utf-8" }
            let untyped = fixture.serve("/untyped", body) { $0.contentType = nil }

            func download(_ url: URL, to name: String, _ checks: [ResponseCheck]) async -> Download {
                var request = DownloadRequest(url: url, to: .file(fixture.file(name)))
                request.checks = checks
                return await fixture.manager.download(request)
            }
            let refused = await download(html, to: "a", [.contentType(["application/octet-stream", "image/*"])])
            let error = try await #require(throws: DownloadError.self) { try await refused.fileURL }
            #expect(
                error.reason
                    == "content type text/html is not acceptable; acceptable: application/octet-stream, image/*")

            var jsonRequest = URLRequest(url: html)
            jsonRequest.setValue("application/json, text/plain;q=0.5", forHTTPHeaderField: "Accept")
            var acceptingRequest = DownloadRequest(jsonRequest, to: .file(fixture.file("b")))
            acceptingRequest.checks = acceptingRequest.usualChecks
            let accepting = await fixture.manager.download(acceptingRequest)
            let acceptError = try await #require(throws: DownloadError.self) { try await accepting.fileURL }
            #expect(acceptError.kind == .validationFailed)
            #expect(acceptError.reason.contains("text/html is not acceptable"))

            let anyType = await download(
                html, to: "c",
                DownloadRequest(url: html, to: .file(fixture.file("c"))).usualChecks + [.contentType(["*/*"])])
            try body.expectMatches(try await anyType.fileURL)

            let noType = await download(untyped, to: "d", [.contentType(["text/html"])])
            let noTypeError = try await #require(throws: DownloadError.self) { try await noType.fileURL }
            #expect(noTypeError.reason.hasPrefix("the response has no Content-Type"))
        }
    }

    @Test func theFirstRefusalStopsTheChainAndCanKeepTheBytes() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 703)
            let url = fixture.serve("/custom.bin", body)
            var request = DownloadRequest(url: url, to: .file(fixture.file("custom.bin")))
            request.onRejectedFile = .keep
            let ran = Locked<[Int]>([])
            request.checks = [
                ResponseCheck { _, _ in ran.withLock { $0.append(1) } },
                ResponseCheck { _, file in
                    ran.withLock { $0.append(2) }
                    let head = try FileHandle(forReadingFrom: file).read(upToCount: 2)
                    if head != Data("PK".utf8) { throw NotAnArchive() }
                },
                ResponseCheck { _, _ in ran.withLock { $0.append(3) } },
            ]
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(ran.withLock { $0 } == [1, 2])
            #expect(error.kind == .validationFailed)
            #expect(error.reason == "the file does not start with PK")
            try body.expectMatches(URL(fileURLWithPath: try #require(error.path)))
            #expect(!FileManager.default.fileExists(atPath: fixture.file("custom.bin").path))
        }
    }

    @Test func validatorsRunOnlyOnAFileWhoseDigestMatched() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/digest.bin", .pattern(count: 10_000, seed: 704))
            var request = DownloadRequest(url: url, to: .file(fixture.file("digest.bin")))
            request.expectedDigest = ExpectedDigestTests.wrongDigest()
            let ran = Locked(false)
            request.checks = [ResponseCheck { _, _ in ran.withLock { $0 = true } }]
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            #expect(!ran.withLock { $0 })
        }
    }

    /// A check given with the request runs however soon the download ends: a file already at its
    /// destination, or one small enough to arrive before `download(_:)` returns, is checked too.
    @Test func aCheckGivenWithTheRequestRunsHoweverSoonTheDownloadEnds() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/tiny.bin", .pattern(count: 10, seed: 705))
            let ran = Locked(0)
            var request = DownloadRequest(url: url, to: .file(fixture.file("tiny.bin")))
            request.checks = [
                ResponseCheck { _, _ in
                    ran.withLock { $0 += 1 }
                    throw NotAnArchive()
                }
            ]
            for _ in 0..<5 {
                let error = try await #require(throws: DownloadError.self) {
                    try await fixture.manager.download(request).fileURL
                }
                #expect(error.kind == .validationFailed)
            }
            #expect(ran.withLock { $0 } == 5)
            #expect(fixture.listing().isEmpty)
        }
    }

    /// A check added to a download that could deliver before it is refused, loudly; one added
    /// while the download is paused runs when it is resumed.
    @Test func aCheckIsAddedOnlyWhileTheDownloadCannotDeliver() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 50_000, seed: 706)
            let url = fixture.serve("/late.bin", body)
            let completed = await fixture.manager.download(from: url, to: .file(fixture.file("late.bin")))
            try body.expectMatches(try await completed.fileURL)
            let late = try #require(throws: DownloadError.self) { try completed.validate(statusCode: [200]) }
            #expect(late.kind == .invalidRequest)
            #expect(late.reason.contains("completed"), "\(late.reason)")

            let paused = await fixture.manager.download(
                DownloadRequest(url: url, to: .file(fixture.file("paused.bin"))), startsPaused: true)
            try paused.validate(statusCode: [200])
            await paused.resume()
            let error = try await #require(throws: DownloadError.self) { try await paused.fileURL }
            #expect(error.reason == "status code 206 is not acceptable")
        }
    }

    /// A request with checks that joins a download under way would add them too late: it is
    /// refused; joining a paused one adds them.
    @Test func aRequestWithChecksJoinsOnlyADownloadThatCannotDeliverYet() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 300_000, seed: 707)
            let url = fixture.serve("/joined.bin", body) { $0.faults = [.holdAfter(1_000)] }
            let destination = Destination.file(fixture.file("joined.bin"))
            let running = await fixture.manager.download(from: url, to: destination)
            #expect(await fixture.server.waitForRequests(1, path: "/joined.bin"))
            var checked = DownloadRequest(url: url, to: destination)
            checked.checks = [.statusCode([200])]
            #expect(throws: DownloadError.self) { try running.validate() }
            let refused = await fixture.manager.download(checked)
            #expect(refused !== running)
            let error = try await #require(throws: DownloadError.self) { try await refused.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(error.reason.contains("give them to the first request"), "\(error.reason)")

            await running.pause()
            let joined = await fixture.manager.download(checked)
            #expect(joined === running)
            fixture.server.release("/joined.bin")
            let refusal = try await #require(throws: DownloadError.self) { try await joined.fileURL }
            #expect(refusal.reason == "status code 206 is not acceptable")
        }
    }
}
