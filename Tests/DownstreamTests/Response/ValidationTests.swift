@_spi(Testing) @testable import Downstream
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
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("ok.bin")))
            let seen = Locked<[String]>([])
            let file =
                try await download
                .validate(statusCode: 200..<300)
                .validate(contentType: ["text/plain", "application/*"])
                .validate { response, file in
                    // The custom check sees the response and the complete file, not yet delivered.
                    #expect(response.statusCode == 206)
                    #expect(response.value(forHTTPHeaderField: "content-range") == "bytes 0-299999/300000")
                    #expect(response.mediaType == "application/zip")
                    #expect(response.url == url)
                    #expect(fileLength(file) == body.count)
                    #expect(file != fixture.file("ok.bin"))
                    #expect(!FileManager.default.fileExists(atPath: fixture.file("ok.bin").path))
                    seen.withLock { $0.append("custom") }
                }
                .fileURL
            try body.expectMatches(file)
            #expect(seen.withLock { $0 } == ["custom"])
        }
    }

    @Test func aRefusedStatusCodeFailsAndDeliversNothing() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 200_000, seed: 701)
            let url = fixture.serve("/status.bin", body)
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("status.bin")))
            let error = try await #require(throws: DownloadError.self) {
                try await download.validate(statusCode: [200]).fileURL
            }
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

            let refused = await fixture.manager.download(from: html, to: .file(fixture.file("a")))
            let error = try await #require(throws: DownloadError.self) {
                try await refused.validate(contentType: ["application/octet-stream", "image/*"]).fileURL
            }
            #expect(
                error.reason
                    == "content type text/html is not acceptable; acceptable: application/octet-stream, image/*")

            var jsonRequest = URLRequest(url: html)
            jsonRequest.setValue("application/json, text/plain;q=0.5", forHTTPHeaderField: "Accept")
            let accepting = await fixture.manager.download(DownloadRequest(jsonRequest, to: .file(fixture.file("b"))))
            let acceptError = try await #require(throws: DownloadError.self) {
                try await accepting.validate().fileURL
            }
            #expect(acceptError.kind == .validationFailed)
            #expect(acceptError.reason.contains("text/html is not acceptable"))

            let anyType = await fixture.manager.download(from: html, to: .file(fixture.file("c")))
            try body.expectMatches(try await anyType.validate().validate(contentType: ["*/*"]).fileURL)

            let noType = await fixture.manager.download(from: untyped, to: .file(fixture.file("d")))
            let noTypeError = try await #require(throws: DownloadError.self) {
                try await noType.validate(contentType: ["text/html"]).fileURL
            }
            #expect(noTypeError.reason.hasPrefix("the response has no Content-Type"))
        }
    }

    @Test func theFirstRefusalStopsTheChainAndCanKeepTheBytes() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 703)
            let url = fixture.serve("/custom.bin", body)
            var request = DownloadRequest(url: url, to: .file(fixture.file("custom.bin")))
            request.onRejectedFile = .keep
            let download = await fixture.manager.download(request)
            let ran = Locked<[Int]>([])
            let error = try await #require(throws: DownloadError.self) {
                try await download
                    .validate { _, _ in ran.withLock { $0.append(1) } }
                    .validate { _, file in
                        ran.withLock { $0.append(2) }
                        let head = try FileHandle(forReadingFrom: file).read(upToCount: 2)
                        if head != Data("PK".utf8) { throw NotAnArchive() }
                    }
                    .validate { _, _ in ran.withLock { $0.append(3) } }
                    .fileURL
            }
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
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) {
                try await download.validate { _, _ in ran.withLock { $0 = true } }.fileURL
            }
            #expect(error.kind == .integrityCheckFailed)
            #expect(!ran.withLock { $0 })
        }
    }
}
