@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2)))
struct DownloadManagerTests {
    @Test func listsItsDownloadsAndFindsThemByID() async throws {
        try await withFixture { fixture in
            var downloads: [Download] = []
            for index in 0..<3 {
                let url = fixture.serve("/\(index)", .pattern(count: 1000, seed: UInt64(index)))
                downloads.append(await fixture.manager.download(from: url, to: .directory(fixture.directory)))
            }
            #expect(await fixture.manager.downloads.map(\.id) == downloads.map(\.id))
            for download in downloads {
                #expect(await fixture.manager.download(withID: download.id) === download)
                _ = try await download.fileURL
            }
            #expect(await fixture.manager.download(withID: Download.ID(rawValue: UUID())) == nil)
        }
    }

    @Test func theSameURLAndDestinationJoinTheRunningDownload() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 500_000, seed: 50)
            let url = fixture.serve("/same", body) { $0.faults = [.holdAfter(1000)] }
            let first = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let second = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            #expect(first === second)
            let other = await fixture.manager.download(from: url, to: .directory(fixture.file("elsewhere")))
            #expect(other !== first)
            // Another URL to the same place would share the partial file: refused.
            let clash = await fixture.manager.download(
                from: fixture.serve("/clash", .pattern(count: 10)) { $0.faults = [.holdAfter(5)] },
                to: .file(fixture.file("same.bin")))
            let clashing = await fixture.manager.download(
                from: fixture.serve("/other", .pattern(count: 10)), to: .file(fixture.file("same.bin")))
            let error = try await #require(throws: DownloadError.self) { try await clashing.fileURL }
            #expect(error.kind == .invalidRequest)
            fixture.server.release("/clash")
            _ = try await clash.fileURL
            fixture.server.release("/same")
            try body.expectMatches(try await first.fileURL)
            try body.expectMatches(try await other.fileURL)
        }
    }

    @Test func pausesResumesAndCancelsAll() async throws {
        try await withFixture { fixture in
            let bodies = (0..<3).map { Body.pattern(count: 600_000, seed: 60 + UInt64($0)) }
            var downloads: [Download] = []
            for (index, body) in bodies.enumerated() {
                let url = fixture.serve("/all\(index)", body) { $0.faults = [.holdAfter(200_000)] }
                downloads.append(await fixture.manager.download(from: url, to: .directory(fixture.directory)))
            }
            for download in downloads { await download.waitForBytes(200_000) }

            await fixture.manager.pauseAll()
            #expect(downloads.allSatisfy { $0.state == .paused })

            await fixture.manager.resumeAll()
            for (download, body) in zip(downloads, bodies) {
                try body.expectMatches(try await download.fileURL)
            }

            let url = fixture.serve("/last", .pattern(count: 600_000)) { $0.faults = [.holdAfter(1000)] }
            let last = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            await last.waitForBytes(1000)
            await fixture.manager.cancelAll()
            #expect(last.state == .cancelled)
            #expect(downloads.allSatisfy { $0.state == .completed })
        }
    }
}
