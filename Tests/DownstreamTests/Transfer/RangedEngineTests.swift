@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the ranged engine answers each kind of response to a resumed request.
@Suite(.timeLimit(.minutes(2)))
struct RangedEngineTests {
    /// Starts a download of `path`, lets the server send `heldBytes` and pauses it there.
    func pausedDownload(
        _ fixture: Fixture, path: String, heldBytes: Int64, destination: URL,
        onServerFileChange: DownloadRequest.ServerFileChangePolicy = .restart
    ) async -> Download {
        let request = DownloadRequest(
            URLRequest(url: fixture.server.url(path)), to: .file(destination), onServerFileChange: onServerFileChange)
        let download = await fixture.manager.download(request)
        await download.waitForBytes(heldBytes)
        await download.pause()
        #expect(fileLength(destination.appendingPathExtension("partial")) == heldBytes)
        return download
    }

    /// A server that ignores `Range` sends its whole file: of the same version (the same strong
    /// `ETag` and length), its first bytes are compared with the partial's and the rest appended;
    /// with no `ETag` (`Last-Modified` only), the download starts over from it, as before.
    @Test(arguments: [true, false])
    func aServerThatIgnoresRangeIsReadOnOnlyWithTheSameStrongTag(hasETag: Bool) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_500_000, seed: 10)
            fixture.serve("/f", body) {
                $0.faults = [.holdAfter(600_000), .ignoreRange]
                if !hasETag { $0.etag = nil }
            }
            let destination = fixture.file("f.bin")
            let download = await pausedDownload(fixture, path: "/f", heldBytes: 600_000, destination: destination)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/f")
            #expect(requests.map(\.rangeStart) == [0, fixture.rangeStart(continuing: 600_000)])
            #expect(requests.map(\.status) == [206, 200])
            #expect(requests[1].bodyBytesSent == body.count)
            let events = await download.allEvents()
            #expect(events.contains(.restarted) == !hasETag)
        }
    }

    @Test func restartsFromZeroWhenTheValidatorChanged() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_500_000, seed: 11)
            fixture.serve("/e", body) {
                $0.faults = [.holdAfter(500_000)]
                $0.etagChangesEveryRequest = true
                $0.lastModified = nil
            }
            let destination = fixture.file("e.bin")
            let download = await pausedDownload(fixture, path: "/e", heldBytes: 500_000, destination: destination)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/e")
            #expect(requests[1].rangeStart == fixture.rangeStart(continuing: 500_000))
            // If-Range carried the first response's ETag, which no longer matches.
            #expect(requests[1].header("If-Range") == "\"\(StableHash.hex("/e"))-0\"")
            #expect(requests[1].status == 200)
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    @Test func failsOnAChangedFileWhenTheRequestSaysSoAndKeepsTheBytes() async throws {
        try await withFixture { fixture in
            fixture.serve("/x", .pattern(count: 1_000_000)) {
                $0.faults = [.holdAfter(400_000)]
                $0.etagChangesEveryRequest = true
            }
            let destination = fixture.file("x.bin")
            let download = await pausedDownload(
                fixture, path: "/x", heldBytes: 400_000, destination: destination, onServerFileChange: .fail)

            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .serverFileChanged)
            #expect(download.state == .failed)
            #expect(fileLength(destination.appendingPathExtension("partial")) == 400_000)

            // Resuming starts over: the kept bytes are of another version.
            await download.resume()
            try Body.pattern(count: 1_000_000).expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/x").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 400_000), 0])
        }
    }

    /// A 206 from another offset, or with another total, is not written at all: the partial
    /// keeps exactly its bytes (seen when the request that starts over fails), and the download
    /// starts over.
    @Test(arguments: [Fault.contentRangeStart(100_000), .contentRangeTotal(2_000_000)])
    func neverWritesARangeThatDoesNotFit(_ misfit: Fault) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 12)
            fixture.serve("/o", body) { $0.faults = [.holdAfter(300_000), misfit, .status(503)] }
            let destination = fixture.file("o.bin")
            let partial = destination.appendingPathExtension("partial")
            let download = await pausedDownload(fixture, path: "/o", heldBytes: 300_000, destination: destination)

            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error == .httpStatus(503))
            #expect(try Data(contentsOf: partial) == body.bytes(0..<300_000))
            #expect(fixture.server.requests("/o")[1].bodyBytesSent > 0)

            // The bytes of a download that started over are not continued.
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/o")
            #expect(requests.map(\.rangeStart) == [0, fixture.rangeStart(continuing: 300_000), 0, 0])
            #expect(requests.map(\.status) == [206, 206, 503, 206])
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    /// A partial that holds the whole file asks for its last bytes only, to compare them (with no
    /// overlap, the server answers `416`): nothing is downloaded again.
    @Test(arguments: [0, 64 << 10])
    func aWholePartialCompletesWithoutDownloadingAgain(overlap: Int) async throws {
        try await withFixture(startsManager: false, { $0.resumption.overlapLength = overlap }) { fixture in
            let body = Body.pattern(count: 800_000, seed: 14)
            let url = fixture.serve("/whole", body)
            let destination = fixture.file("whole.bin")
            try fixture.leaveInterruptedDownload(of: url, to: .file(destination), partial: body, length: body.count)

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/whole")
            #expect(requests.map(\.rangeStart) == [fixture.rangeStart(continuing: 800_000)])
            #expect(requests.map(\.status) == [overlap == 0 ? 416 : 206])
            #expect(requests.map(\.bodyBytesSent) == [overlap == 0 ? 0 : Int64(overlap)])
            #expect(fixture.listing() == ["whole.bin"])
        }
    }

    @Test func aRangeNotSatisfiableRestartsAnIncompletePartial() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 500_000, seed: 15)
            let url = fixture.serve("/shrunk", body)
            let destination = fixture.file("shrunk.bin")
            // The partial is longer than the file is now: the server's file shrank.
            try fixture.leaveInterruptedDownload(
                of: url, to: .file(destination), partial: .pattern(count: 900_000), length: 700_000)

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/shrunk")
            #expect(requests.map(\.rangeStart) == [fixture.rangeStart(continuing: 700_000), 0])
            #expect(requests.map(\.status) == [416, 206])
        }
    }

    @Test(arguments: [404, 410, 500, 503])
    func anErrorStatusFailsWithTheStatusAndKeepsThePartial(_ status: Int) async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 16)
            fixture.serve("/s", body) { $0.faults = [.holdAfter(250_000), .status(status)] }
            let destination = fixture.file("s.bin")
            let download = await pausedDownload(fixture, path: "/s", heldBytes: 250_000, destination: destination)

            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .httpStatus)
            #expect(error.statusCode == status)
            #expect(error.isResumable == (status >= 500))
            #expect(fileLength(destination.appendingPathExtension("partial")) == 250_000)

            // Once the server is well again, resuming continues from the same bytes.
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/s").map(\.rangeStart) == [
                    0, fixture.rangeStart(continuing: 250_000), fixture.rangeStart(continuing: 250_000),
                ])
        }
    }

    @Test func anErrorStatusOnTheFirstRequestWritesNothing() async throws {
        try await withFixture { fixture in
            fixture.serve("/missing", .pattern(count: 10)) { $0.faults = [.status(404)] }
            let download = await fixture.manager.download(
                from: fixture.server.url("/missing"), to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error == .httpStatus(404))
            #expect(await download.allEvents() == [.queued, .running, .failed(.httpStatus(404))])
            #expect(
                fixture.listing().allSatisfy {
                    !$0.hasPrefix("missing") || $0.hasSuffix(".resume") || $0.hasSuffix(".partial")
                })
            #expect(!fixture.listing().contains("missing"))
        }
    }

    @Test func chunkedBodiesWithoutALengthWork() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_234_567, seed: 17)
            // A streaming server: chunked, no length, no ranges.
            let url = fixture.serve("/chunked", body) {
                $0.supportsRanges = false
                $0.chunked = true
                $0.writeSize = 10_000
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("chunked.bin")))
            let values = Task { await Array(download.progress) }
            try body.expectMatches(try await download.fileURL)
            let progress = await values.value
            #expect(progress.dropLast().allSatisfy { $0.expectedBytes == nil && $0.fractionCompleted == nil })
            #expect(progress.last?.bytesReceived == body.count)
        }
    }

    @Test func manySmallChunksAreWrittenInTheOrderReceived() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 18)
            let url = fixture.serve("/small", body) {
                $0.chunked = true
                $0.writeSize = 97
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("small.bin")))
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func followsRedirectsAndNamesTheFileAfterTheFinalURL() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 200_000, seed: 19)
            fixture.serve("/files/report-2026.pdf", body)
            fixture.serve("/latest", .data(Data())) { $0.redirect = (302, "/files/report-2026.pdf") }
            let download = await fixture.manager.download(
                from: fixture.server.url("/latest"), to: .directory(fixture.file("inbox")))
            let file = try await download.fileURL
            #expect(file.lastPathComponent == "report-2026.pdf")
            try body.expectMatches(file)
        }
    }

    @Test func resumesThroughARedirect() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 900_000, seed: 20)
            fixture.serve("/real", body) { $0.faults = [.holdAfter(300_000)] }
            fixture.serve("/alias", .data(Data())) { $0.redirect = (307, "/real") }
            let destination = fixture.file("alias.bin")
            let download = await pausedDownload(fixture, path: "/alias", heldBytes: 300_000, destination: destination)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/real").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 300_000)])
        }
    }

    @Test func requestsBypassTheURLCache() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 50_000, seed: 21)
            let url = fixture.serve("/cacheable", body) { $0.extraHeaders = ["Cache-Control": "max-age=3600"] }
            for name in ["one.bin", "two.bin"] {
                try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .file(fixture.file(name))))
            }
            #expect(fixture.server.requests("/cacheable").map(\.status) == [206, 206])
        }
    }
}
