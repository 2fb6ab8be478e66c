@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A delivered file takes the server's `Last-Modified` as its modification time (as wget gives
/// it), so that a later download asks the server about the server's time, not the download's.
@Suite(.timeLimit(.minutes(1)))
struct ModificationTimeTests {
    static let lastModified = "Sun, 01 Nov 2026 10:00:00 GMT"
    static let date = Date(timeIntervalSince1970: 1_793_527_200)  // 2026-11-01 10:00:00 UTC

    static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    @Test func aDeliveredFileHasTheServersModificationTime() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/dated.bin", .pattern(count: 30_000, seed: 2320)) {
                $0.lastModified = Self.lastModified
            }
            let file = try await fixture.manager.downloadFile(from: url, to: .directory(fixture.directory))
            #expect(Self.modified(file) == Self.date)
        }
    }

    @Test func aFileAfterAPauseHasItToo() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 400_000, seed: 2321)
            let url = fixture.serve("/paused.bin", body) {
                $0.lastModified = Self.lastModified
                $0.faults = [.holdAfter(100_000)]
            }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            await download.waitForBytes(100_000)
            await download.pause()
            fixture.server.release("/paused.bin")
            await download.resume()
            let file = try await download.fileURL
            try body.expectMatches(file)
            #expect(Self.modified(file) == Self.date)
        }
    }

    @Test func theTimeOfWritingIsKeptWhenAskedAndWithoutLastModified() async throws {
        try await withFixture({ $0.storage.usesServerModificationTime = false }) { fixture in
            let url = fixture.serve("/now.bin", .pattern(count: 30_000, seed: 2322)) {
                $0.lastModified = Self.lastModified
            }
            let before = Date().addingTimeInterval(-60)
            let file = try await fixture.manager.downloadFile(from: url, to: .directory(fixture.directory))
            #expect(try #require(Self.modified(file)) > before)
        }
        try await withFixture { fixture in
            let url = fixture.serve("/undated.bin", .pattern(count: 30_000, seed: 2323)) { $0.lastModified = nil }
            let before = Date().addingTimeInterval(-60)
            let file = try await fixture.manager.downloadFile(from: url, to: .directory(fixture.directory))
            #expect(try #require(Self.modified(file)) > before)
        }
    }
}
