@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request may name several URLs of one file: when one fails beyond what its retries can mend,
/// the download continues from its bytes on the next.
@Suite(.timeLimit(.minutes(2)))
struct MirrorTests {
    static let body = Body.pattern(count: 1_000_000, seed: 920)
    static let overlap: Int64 = 64 << 10

    @Test func aMirrorTakesOverFromTheBytesOnDiskWhenTheURLDiesMidFile() async throws {
        let recorder = EventMonitorTests.Recorder()
        try await withFixture({ $0.eventMonitors = [recorder] }) { fixture in
            let mirror = try TestServer()
            defer { mirror.shutdown() }
            let primary = fixture.serve("/file.bin", Self.body) { $0.faults = [.closeAfter(300_000)] }
            var route = Route(body: Self.body)
            route.etag = "\"on-the-mirror\""
            mirror.setRoute("/file.bin", route)
            var request = DownloadRequest(url: primary, to: .file(fixture.file("file.bin")))
            request.mirrors = [mirror.url("/file.bin")]
            let download = await fixture.manager.download(request)

            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/file.bin").count == 1)
            #expect(mirror.requests("/file.bin").map(\.rangeStart) == [300_000 - Self.overlap])
            #expect(download.url == mirror.url("/file.bin"))
            let events = await download.allEvents()
            #expect(events.contains(.switchedURL(to: mirror.url("/file.bin"))))
            #expect(events.contains(.resumed(at: 300_000)))
            await recorder.waitForEnd()
            #expect(recorder.lines.value.contains("switched to /file.bin"))
        }
    }

    /// Transient failures are retried on the same URL first; the mirror comes after the last
    /// retry, with retries of its own.
    @Test func retriesComeBeforeTheMirror() async throws {
        let clock = ManualClock()
        try await withFixture({
            $0.retry = .init()
            $0.retry.maximumRetries = 1
            $0.retry.jitter = 0
            $0.run(on: clock)
        }) { fixture in
            fixture.serve("/a", Self.body) { $0.faults = [.status(503), .status(503)] }
            fixture.serve("/b", Self.body) { $0.faults = [.status(503)] }
            var request = DownloadRequest(url: fixture.server.url("/a"), to: .file(fixture.file("file.bin")))
            request.mirrors = [fixture.server.url("/b")]
            let download = await fixture.manager.download(request)
            var sleeps = clock.sleeps.makeAsyncIterator()
            #expect(await sleeps.next() == .seconds(1))
            clock.advance(by: .seconds(1))
            // /a failed twice: /b takes over at once, and its 503 gets a retry of its own.
            #expect(await sleeps.next() == .seconds(1))
            clock.advance(by: .seconds(1))
            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/a").map(\.status) == [503, 503])
            #expect(fixture.server.requests("/b").map(\.status) == [503, 206])
        }
    }

    @Test func whenEveryURLFailsTheErrorListsEachFailure() async throws {
        try await withFixture { fixture in
            fixture.serve("/a", Self.body) { $0.faults = [.status(404)] }
            fixture.serve("/b", Self.body) { $0.faults = [.status(410)] }
            fixture.serve("/c", Self.body) { $0.faults = [.closeAfter(200_000)] }
            var request = DownloadRequest(url: fixture.server.url("/a"), to: .file(fixture.file("file.bin")))
            request.mirrors = [fixture.server.url("/b"), fixture.server.url("/c")]
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .allURLsFailed)
            #expect(error.urlFailures.map(\.url) == ["/a", "/b", "/c"].map { fixture.server.url($0) })
            #expect(error.urlFailures.map(\.error.statusCode) == [404, 410, nil])
            #expect(error.urlFailures[2].error.kind == .network)
            #expect(error.isResumable)
            #expect(error.description.contains("/b: HTTP status"))
            // The bytes the last one sent are kept: resuming tries the URLs again, from them.
            #expect(fileLength(fixture.file("file.bin.partial")) == 200_000)
            await download.resume()
            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/c").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 200_000)])
        }
    }

    /// A failure that is not the URL's (the disk, a conflict) does not move to a mirror.
    @Test func aFailureOfTheDiskIsNotAFailureOfTheURL() async throws {
        try await withFixture { fixture in
            let destination = fixture.file("taken.bin")
            fixture.serve("/a", Self.body)
            fixture.serve("/b", Self.body)
            var request = DownloadRequest(url: fixture.server.url("/a"), to: .file(destination, ifExists: .fail))
            request.mirrors = [fixture.server.url("/b")]
            // The destination appears while the file downloads.
            fixture.server.whenBodyBytesReach(100_000) {
                try? Data().writeWithoutSync(to: destination)
            }
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .destinationExists)
            #expect(fixture.server.requests("/b").isEmpty)
        }
    }

    @Test func aRelaunchContinuesWithTheMirrorInUse() async throws {
        try await withFixture(startsManager: false) { fixture in
            fixture.serve("/a", Self.body) { $0.faults = [.status(404)] }
            fixture.serve("/b", Self.body) { $0.faults = [.holdAfter(300_000)] }
            var request = DownloadRequest(url: fixture.server.url("/a"), to: .file(fixture.file("file.bin")))
            request.mirrors = [fixture.server.url("/b")]
            do {
                let manager = try fixture.makeManager()
                let download = await manager.download(request)
                await download.waitForBytes(300_000)
                await manager.invalidate()
            }
            let manager = try fixture.makeManager()
            let restored = try #require(await manager.downloads.first)
            #expect(restored.url == fixture.server.url("/b"))
            #expect(restored.request.mirrors == [fixture.server.url("/b")])
            await restored.resume()
            try Self.body.expectMatches(try await restored.fileURL)
            #expect(fixture.server.requests("/a").count == 1)
            // The same server, and its strong ETag: If-Range guards the range, no overlap needed.
            #expect(fixture.server.requests("/b").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 300_000)])
        }
    }

    @Test func aMirrorThatIsNotHTTPMakesTheRequestInvalid() async throws {
        try await withFixture { fixture in
            var request = DownloadRequest(url: fixture.server.url("/a"), to: .file(fixture.file("file.bin")))
            request.mirrors = [URL(string: "ftp://example.com/file.bin")!]
            let download = await fixture.manager.download(request)
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
        }
    }
}
