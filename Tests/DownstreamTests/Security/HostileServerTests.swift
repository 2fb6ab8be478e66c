@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// Servers that lie or attack: each case ends in a safe file name or a typed error, nothing is
/// written outside the destination, and what can be resumed is kept.
@Suite(.timeLimit(.minutes(2)))
struct HostileServerTests {
    @Test(arguments: [
        ("attachment; filename=\"../../../.ssh/authorized_keys\"", "authorized_keys"),
        ("attachment; filename=\"/etc/cron.d/job\"", "job"),
        ("attachment; filename*=UTF-8''evil%00name%0A%1B%5B31m.txt", "evilname[31m.txt"),
        ("attachment; filename=\"NUL.txt\"", "_NUL.txt"),
        // Nothing left of the name: the URL's is used.
        ("attachment; filename=\"..\"", "named"),
        (
            "attachment; filename=\"\(String(repeating: "a", count: 5_000)).iso\"",
            String(repeating: "a", count: 251) + ".iso"
        ),
    ])
    func aHostileFileNameBecomesASafeNameInsideTheDirectory(_ header: String, _ expected: String) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 2_000, seed: 750)
            let url = fixture.serve("/named", body) { $0.contentDisposition = header }
            let inbox = fixture.file("inbox")
            let file = try await fixture.manager.downloadFile(from: url, to: .directory(inbox))
            #expect(file == inbox.appendingPathComponent(expected))
            try body.expectMatches(file)
            #expect(fixture.listing() == ["inbox"])
            #expect(fixture.listing(inbox) == [expected])
        }
    }

    /// A name of 255 bytes is a name: as a destination file, and from a URL of a longer one (cut,
    /// extension kept), with the bidirectional override gone.
    @Test func theLongestNamesAreSavedAndDisplayAsTheyAre() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 754)
            let longest = String(repeating: "l", count: 251) + ".bin"
            let url = fixture.serve("/\(longest)", body)
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .file(fixture.file(longest))))

            let tooLong = String(repeating: "t", count: 300)
            let fromURL = fixture.serve("/\(tooLong)%E2%80%AE.iso", body)
            let inbox = fixture.file("inbox")
            let file = try await fixture.manager.downloadFile(from: fromURL, to: .directory(inbox))
            #expect(file.lastPathComponent == String(repeating: "t", count: 251) + ".iso")
            try body.expectMatches(file)
        }
    }

    @Test func bytesBeyondTheContentLengthAreNeverWritten() async throws {
        // Ranges of 100,000 bytes on one connection; the first answer has 5,000 bytes too many,
        // which the client reads as the start of the next answer.
        try await withFixture({ $0.network.maximumBytesPerRequest = 100_000 }) { fixture in
            let body = Body.pattern(count: 350_000, seed: 751)
            let url = fixture.serve("/longer.bin", body) { $0.faults = [.trailingBytes(5_000)] }
            var request = DownloadRequest(url: url, to: .file(fixture.file("longer.bin")))
            request.expectedDigest = ExpectedDigestTests.digest(.sha256, of: body)
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unexpectedResponse)
            #expect(error.reason.hasPrefix("the answer is not HTTP"))
            #expect(error.isResumable)
            // Exactly the announced bytes of the first answer are on disk.
            #expect(fileLength(download.location.partialURL) == 100_000)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/longer.bin").last?.rangeStart == fixture.rangeStart(continuing: 300_000))
        }
    }

    @Test func aBodyShorterThanItsContentLengthFailsResumably() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 400_000, seed: 752)
            let url = fixture.serve("/shorter.bin", body) { $0.faults = [.closeAfter(123_456)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("shorter.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .network)
            #expect(error.isResumable)
            #expect(fileLength(download.location.partialURL) == 123_456)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/shorter.bin").last?.rangeStart == fixture.rangeStart(continuing: 123_456))
        }
    }

    @Test func aContentRangeThatDisagreesWithTheRequestIsNeverWritten() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 753)
            let url = fixture.serve("/range.bin", body) { $0.faults = [.contentRangeStart(5_000)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("range.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unexpectedResponse)
            #expect(error.reason == "206 starts at byte 5000, the request asked for 0")
            #expect(fileLength(download.location.partialURL) ?? 0 == 0)
            // The next answer is right: the file comes whole.
            await download.resume()
            try body.expectMatches(try await download.fileURL)
        }
    }

    /// `Downstream gzip test line\n` 40 times, compressed with gzip (1,040 bytes decoded).
    static let gzipped = Data(
        base64Encoded: "H4sIAAAAAAACA3PJL88rLilKTcxVSK/KLFAoSS0uUcjJzEvlchmVGZUZlRlhMgCZhT+kEAQAAA==")!
    static let decoded = String(repeating: "Downstream gzip test line\n", count: 40)

    @Test func aCompressedAnswerToARangedRequestIsRefusedBeforeAnyByteIsWritten() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/compressed.txt", .data(Self.gzipped)) {
                $0.extraHeaders = ["Content-Encoding": "gzip"]
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("compressed.txt")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .unexpectedResponse)
            #expect(
                error.reason
                    == "the server sent the body compressed (Content-Encoding: gzip), which the request did not "
                    + "accept (DownloadRequest.acceptsCompressedBody)")
            #expect(fixture.server.requests("/compressed.txt").first?.header("Accept-Encoding") == "identity")
            #expect(fileLength(download.location.partialURL) ?? 0 == 0)
        }
    }

    @Test func aCompressedWholeFileIsWrittenDecodedWhenTheRequestAcceptsCompression() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/whole.txt", .data(Self.gzipped)) {
                $0.extraHeaders = ["Content-Encoding": "gzip"]
                $0.supportsRanges = false
            }
            var request = DownloadRequest(url: url, to: .file(fixture.file("whole.txt")))
            request.acceptsCompressedBody = true
            let download = await fixture.manager.download(request)
            let file = try await download.fileURL
            #expect(try String(contentsOf: file, encoding: .utf8) == Self.decoded)
        }
    }
}
