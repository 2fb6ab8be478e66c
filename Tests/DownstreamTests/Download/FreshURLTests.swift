@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download can be given a new URL for the same file (a signed link that expired): it keeps
/// its bytes, continues from them on the new URL, and stays the same download.
@Suite(.timeLimit(.minutes(2)))
struct FreshURLTests {
    static let body = Body.pattern(count: 1_000_000, seed: 910)
    static let held: Int64 = 300_000
    static let overlap: Int64 = 64 << 10

    /// A download of `/old` paused with ``held`` bytes on disk; `/new` serves the same file.
    static func pausedDownload(_ fixture: Fixture, manager: DownloadManager? = nil) async -> Download {
        fixture.serve("/old", body) { $0.faults = [.holdAfter(held)] }
        fixture.serve("/new", body)
        let download = await (manager ?? fixture.manager).download(
            from: fixture.server.url("/old"), to: .file(fixture.file("file.bin")))
        await download.waitForBytes(held)
        await download.pause()
        return download
    }

    @Test func aPausedDownloadContinuesFromItsBytesOnTheNewURL() async throws {
        let recorder = EventMonitorTests.Recorder()
        try await withFixture({ $0.eventMonitors = [recorder] }) { fixture in
            let download = await Self.pausedDownload(fixture)
            let new = fixture.server.url("/new")
            try await download.setURL(new)
            #expect(download.url == new)
            #expect(download.request.url == fixture.server.url("/old"))
            #expect(download.state == .paused)

            await download.resume()
            try Self.body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/new")
            // Validators of one URL mean nothing for another: no If-Range, the overlap compared.
            #expect(requests.map(\.rangeStart) == [Self.held - Self.overlap])
            #expect(requests.map { $0.header("If-Range") } == [nil])
            let events = await download.allEvents()
            #expect(events.contains(.switchedURL(to: new)))
            #expect(events.contains(.resumed(at: Self.held)))
            await recorder.waitForEnd()
            #expect(recorder.lines.value.contains("switched to /new"))
        }
    }

    @Test func aRunningRequestStopsAndTheNextContinuesOnTheNewURL() async throws {
        try await withFixture { fixture in
            fixture.serve("/old", Self.body) { $0.faults = [.holdAfter(Self.held)] }
            fixture.serve("/new", Self.body)
            let download = await fixture.manager.download(
                from: fixture.server.url("/old"), to: .file(fixture.file("file.bin")))
            await download.waitForBytes(Self.held)
            try await download.setURL(fixture.server.url("/new"))
            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/old").count == 1)
            #expect(fixture.server.requests("/new").map(\.rangeStart) == [Self.held - Self.overlap])
        }
    }

    @Test func aRelaunchUsesTheNewURLAndTheOriginalRequestFindsTheDownload() async throws {
        try await withFixture(startsManager: false) { fixture in
            let old = fixture.server.url("/old")
            let new = fixture.server.url("/new")
            var id: Download.ID?
            do {
                let manager = try fixture.makeManager()
                let download = await Self.pausedDownload(fixture, manager: manager)
                try await download.setURL(new)
                id = download.id
                await manager.invalidate()
            }
            let manager = try fixture.makeManager()
            let restored = try #require(await manager.downloads.first)
            #expect(restored.id == id)
            #expect(restored.url == new)
            #expect(restored.request.url == old)
            // Asking again for the original URL and destination joins it (and resumes it).
            let joined = await manager.download(from: old, to: .file(fixture.file("file.bin")))
            #expect(joined === restored)
            try Self.body.expectMatches(try await joined.fileURL)
            #expect(fixture.server.requests("/new").map(\.rangeStart) == [Self.held - Self.overlap])
            #expect(fixture.server.requests("/old").count == 1)
        }
    }

    @Test func aRefusedURLIsRefreshedByTheHandler() async throws {
        let asked = Locked<[RejectedURL]>([])
        try await withFixture({ configuration in
            configuration.urlRefresh.handler = { rejected in
                asked.withLock { $0.append(rejected) }
                return URL(string: "\(rejected.url.absoluteString.replacingOccurrences(of: "/old", with: "/new"))")
            }
        }) { fixture in
            fixture.serve("/old", Self.body) { $0.faults = [.holdAfter(Self.held), .status(403)] }
            fixture.serve("/new", Self.body)
            var request = DownloadRequest(url: fixture.server.url("/old"), to: .file(fixture.file("file.bin")))
            request.metadata = ["fileID": "42"]
            let download = await fixture.manager.download(request)
            await download.waitForBytes(Self.held)
            await download.pause()
            await download.resume()
            try Self.body.expectMatches(try await download.fileURL)

            let rejected = try #require(asked.value.first)
            #expect(asked.value.count == 1)
            #expect(rejected.downloadID == download.id)
            #expect(rejected.url == fixture.server.url("/old"))
            #expect(rejected.response.statusCode == 403)
            #expect(rejected.metadata == ["fileID": "42"])
            #expect(fixture.server.requests("/old").map(\.status) == [206, 403])
            #expect(fixture.server.requests("/new").map(\.rangeStart) == [Self.held - Self.overlap])
            #expect(download.url == fixture.server.url("/new"))
        }
    }

    /// A signed URL that expires in the middle of the file: the request is cut, the retry is
    /// refused, and the handler's fresh URL continues from the bytes on disk.
    @Test func aSignedURLThatExpiresMidDownloadIsRefreshed() async throws {
        let asked = Locked<[URL]>([])
        try await withFixture({ configuration in
            configuration.retry = .init()
            configuration.retry.initialDelay = .zero
            configuration.urlRefresh.handler = { rejected in
                asked.withLock { $0.append(rejected.url) }
                var components = URLComponents(url: rejected.url, resolvingAgainstBaseURL: false)!
                components.query = "sig=\(asked.value.count + 1)"
                return components.url
            }
        }) { fixture in
            // Each signature is good for 600,000 bytes: the first runs out in the middle.
            let budget: Int64 = 600_000
            fixture.serve("/signed.bin", Self.body) { $0.queryExpiresAfter = budget }
            let first = fixture.server.url("/signed.bin?sig=1")
            let download = await fixture.manager.download(from: first, to: .file(fixture.file("file.bin")))
            try Self.body.expectMatches(try await download.fileURL)

            #expect(asked.value == [first])
            let requests = fixture.server.requests("/signed.bin")
            #expect(requests.map(\.target) == ["/signed.bin?sig=1", "/signed.bin?sig=1", "/signed.bin?sig=2"])
            #expect(requests.map(\.status) == [206, 403, 206])
            #expect(requests[0].bodyBytesSent == budget)
            #expect(requests[2].rangeStart == budget - Self.overlap)
            #expect(download.url == fixture.server.url("/signed.bin?sig=2"))
            #expect(await download.allEvents().contains(.switchedURL(to: fixture.server.url("/signed.bin?sig=2"))))
        }
    }

    @Test func aDeclinedRefreshFailsWithTheStatusAndKeepsTheBytes() async throws {
        try await withFixture({ $0.urlRefresh.handler = { _ in nil } }) { fixture in
            fixture.serve("/old", Self.body) { $0.faults = [.holdAfter(Self.held), .status(410)] }
            let download = await fixture.manager.download(
                from: fixture.server.url("/old"), to: .file(fixture.file("file.bin")))
            await download.waitForBytes(Self.held)
            await download.pause()
            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error == .httpStatus(410))
            #expect(fileLength(fixture.file("file.bin.partial")) == Self.held)
        }
    }

    /// A handler whose URLs are all refused is asked a few times in a row, not forever.
    @Test func freshURLsThatAreRefusedTooEndInTheRefusal() async throws {
        let count = Locked(0)
        try await withFixture({ configuration in
            configuration.urlRefresh.handler = { rejected in
                let number = count.withLock {
                    $0 += 1
                    return $0
                }
                return URL(string: "http://\(rejected.url.host!):\(rejected.url.port!)/refused?n=\(number)")
            }
        }) { fixture in
            fixture.serve("/refused", Self.body) { $0.faults = Array(repeating: .status(403), count: 10) }
            let download = await fixture.manager.download(
                from: fixture.server.url("/refused"), to: .file(fixture.file("file.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error == .httpStatus(403))
            #expect(count.value == 3)
            #expect(fixture.server.requests("/refused").count == 4)
        }
    }

    @Test func aURLThatIsNotHTTPIsRefused() async throws {
        try await withFixture { fixture in
            let download = await Self.pausedDownload(fixture)
            let error = await #expect(throws: DownloadError.self) {
                try await download.setURL(URL(fileURLWithPath: "/etc/passwd"))
            }
            #expect(error?.kind == .invalidRequest)
            #expect(download.url == fixture.server.url("/old"))
        }
    }
}
