@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A body the server compresses although the request asked for the file as it is stored: refused
/// before any byte is written, unless the request accepts compressed bodies; then decoded, and
/// bounded by the request's limit and the disk. On the transport under test (CI runs both).
@Suite(.timeLimit(.minutes(2)))
struct CompressedBodyTests {
    /// 16 MiB of zeros in 16 KB: small, because Linux's URLSession decodes a refused body to its
    /// end, on the work queue every session of the process shares (a bomb of 256 MiB held every
    /// other test's URLSession for seconds). HostileServerDLTests sends 1 GiB, to a child process.
    static let bomb = Body.gzippedZeros(count: 16 << 20)

    @Test func aCompressedBodyTheRequestDidNotAcceptIsRefusedBeforeAnyByteIsWritten() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/bomb.bin", Self.bomb) { $0.extraHeaders["Content-Encoding"] = "gzip" }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("bomb.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unexpectedResponse)
            #expect(
                error.reason
                    == "the server sent the body compressed (Content-Encoding: gzip), which the request did not "
                    + "accept (DownloadRequest.acceptsCompressedBody)")
            #expect(fileLength(download.location.partialURL) ?? 0 == 0)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("bomb.bin").path))
            // Asked for as it is stored, once: a server's choice is not a failure to retry.
            let requests = fixture.server.requests("/bomb.bin")
            #expect(requests.count == 1)
            #expect(requests.first?.header("Accept-Encoding") == "identity")
        }
    }

    @Test func aRequestHeaderCannotAcceptCompressionBehindTheSettingsBack() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/file.bin", .pattern(count: 1_000, seed: 1))
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
            _ = try await fixture.manager.downloadFile(DownloadRequest(urlRequest, to: .file(fixture.file("f"))))
            #expect(fixture.server.requests("/file.bin").first?.header("Accept-Encoding") == "identity")
        }
    }

    @Test func anAcceptedGzipBodyIsDecodedToTheFile() async throws {
        try await withFixture { fixture in
            let file = Body.pattern(count: 3_000_000, seed: 770)
            let url = fixture.serve("/file.txt", .gzip(file)) { $0.extraHeaders["Content-Encoding"] = "gzip" }
            var request = DownloadRequest(url: url, to: .file(fixture.file("file.txt")))
            request.acceptsCompressedBody = true
            try file.expectMatches(try await fixture.manager.downloadFile(request))
            #expect(fixture.server.requests("/file.txt").first?.header("Accept-Encoding") == "gzip, deflate")
        }
    }

    @Test func aCodingDownstreamCannotDecodeIsRefusedEvenWhenCompressionIsAccepted() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/file.br", .pattern(count: 10_000, seed: 771)) {
                $0.extraHeaders["Content-Encoding"] = "br"
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("file.br")))
            request.acceptsCompressedBody = true
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unexpectedResponse)
            #expect(
                error.reason == "the server sent the body as Content-Encoding br; Downstream decodes only gzip, deflate"
            )
            #expect(fileLength(download.location.partialURL) ?? 0 == 0)
        }
    }

    @Test(arguments: [DownloadRequest.RejectedFilePolicy.discard, .keep])
    func aBombStopsAtTheRequestsLimitWithNothingWrittenPastIt(_ policy: DownloadRequest.RejectedFilePolicy)
        async throws
    {
        try await withFixture { fixture in
            let url = fixture.serve("/bomb.bin", Self.bomb) { $0.extraHeaders["Content-Encoding"] = "gzip" }
            var request = DownloadRequest(url: url, to: .file(fixture.file("bomb.bin")))
            request.acceptsCompressedBody = true
            request.maximumFileSize = 1_000_000
            request.onRejectedFile = policy
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .fileTooLarge)
            #expect(
                error.reason == "the body goes on past 1000000 bytes, the most the request allows (maximumFileSize)")
            #expect(!error.isResumable)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("bomb.bin").path))
            let partial = download.location.partialURL
            if policy == .keep {
                #expect(error.path == partial.path)
                #expect(fileLength(partial) == 1_000_000)
            } else {
                #expect(error.path == nil)
                #expect(fileLength(partial) == nil)
            }
            #expect(fixture.server.requests("/bomb.bin").count == 1)
        }
    }

    @Test func aFileAnnouncedLargerThanTheLimitIsRefusedBeforeItsFirstByte() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/large.bin", .pattern(count: 2_000_000, seed: 772))
            var request = DownloadRequest(url: url, to: .file(fixture.file("large.bin")))
            request.maximumFileSize = 1_999_999
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .fileTooLarge)
            #expect(error.reason == "the server's file has 2000000 bytes, the request allows 1999999 (maximumFileSize)")
            #expect(fileLength(download.location.partialURL) ?? 0 == 0)

            // The limit it needs: the same file is fine.
            request.maximumFileSize = 2_000_000
            request.duplicates = .startSeparately
            try Body.pattern(count: 2_000_000, seed: 772).expectMatches(
                try await fixture.manager.downloadFile(request))
        }
    }

    @Test func aBodyOfUnknownLengthStopsAtTheLimit() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/chunked.bin", .pattern(count: 3_000_000, seed: 773)) {
                $0.chunked = true
                $0.supportsRanges = false
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("chunked.bin")))
            request.maximumFileSize = 1_000_000
            request.onRejectedFile = .keep
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .fileTooLarge)
            #expect(fileLength(download.location.partialURL) == 1_000_000)
        }
    }

    @Test func aPausedCompressedDownloadStartsAgainFromItsFirstByte() async throws {
        try await withFixture { fixture in
            let file = Body.pattern(count: 2_000_000, seed: 774)
            let url = fixture.serve("/paused.txt", .gzip(file)) {
                $0.extraHeaders["Content-Encoding"] = "gzip"
                $0.faults = [.holdAfter(600_000)]
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("paused.txt")))
            request.acceptsCompressedBody = true
            let download = await fixture.manager.download(request)
            await download.waitForBytes(500_000)
            await download.pause()
            fixture.server.release("/paused.txt")
            await download.resume()
            try file.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/paused.txt")
            #expect(requests.count == 2)
            // Decoded bytes are no offsets of the server's: no range.
            #expect(requests.last?.rangeStart == nil)
            #expect(requests.last?.header("Accept-Encoding") == "gzip, deflate")
        }
    }
}
