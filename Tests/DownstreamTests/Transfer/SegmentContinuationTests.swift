@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A segmented download continued later (after a pause or a relaunch, or on a new URL): each
/// segment's request compares the overlap before the bytes it continues; on the same URL a
/// difference means the file changed, on a new URL only that segment starts again.
@Suite(.timeLimit(.minutes(2)))
struct SegmentContinuationTests {
    static let length: Int64 = 2_000_000
    static let first = Body.pattern(count: length, seed: 1420).bytes(0..<length)

    /// The first version with the bytes in `range` changed.
    static func changed(_ range: Range<Int64>) -> Data {
        var data = first
        for index in range {
            data[Int(index)] = ~data[Int(index)]
        }
        return data
    }

    /// The bytes each saved segment still needs.
    static func missing(_ saved: [SavedSegment]) -> [Range<Int64>] {
        saved.compactMap { $0.start + $0.durable < $0.end ? $0.start + $0.durable..<$0.end : nil }
    }

    /// Serves `data` at `path` with the same validators whatever the version.
    @discardableResult
    static func serve(_ fixture: Fixture, _ path: String, _ data: Data, faults: [Fault] = []) -> URL {
        fixture.serve(path, .data(data)) {
            $0.etag = "\"same-\(path.count)\""
            $0.faults = faults
        }
    }

    /// A download of `path` over four connections, paused with each segment's first bytes on disk;
    /// returns it with its saved segments (the first, finished, included).
    static func pausedDownload(_ fixture: Fixture, _ path: String) async throws -> (Download, [SavedSegment]) {
        let overlap = Int64(fixture.configuration.resumption.overlapLength)
        let hold = 50_000 + overlap
        let url = serve(fixture, path, first, faults: [.none] + Array(repeating: .holdAfter(hold), count: 4))
        let download = await fixture.manager.download(from: url, to: .file(fixture.file("file.bin")))
        await fixture.server.waitForRequests(5, path: path)
        await download.waitForBytes(256 * SegmentedDownloadTests.kibibyte + 4 * 50_000 + 3 * overlap)
        await download.pause()
        fixture.server.release(path)
        let saved = try #require(fixture.storedRecord(download.id)?.resume.segments)
        #expect(saved.count == 5)
        return (download, saved)
    }

    /// The file replaced while paused, with the same length and validators, and a change just
    /// before where one segment continues: that segment's overlap sees it, and the download
    /// starts over as the new version.
    @Test func aReplacementSeenByOneSegmentsOverlapStartsTheFileOver() async throws {
        try await withFixture(SegmentedDownloadTests.segmented(4)) { fixture in
            let (download, saved) = try await Self.pausedDownload(fixture, "/same.bin")
            let last = try #require(saved.last)
            let second = Self.changed(last.start + last.durable - 10..<last.start + last.durable)
            Self.serve(fixture, "/same.bin", second)

            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    /// A new URL for the same file: every segment continues from its bytes on disk, after
    /// comparing its overlap; nothing on disk is downloaded again.
    @Test func aNewURLKeepsEverySegmentThatMatches() async throws {
        try await withFixture(SegmentedDownloadTests.segmented(4)) { fixture in
            let (download, saved) = try await Self.pausedDownload(fixture, "/old.bin")
            let fresh = Self.serve(fixture, "/fresh.bin", Self.first)
            try await download.setURL(fresh)

            await download.resume()
            try expectFile(await download.fileURL, holds: Self.first)
            let overlap = Int64(fixture.configuration.resumption.overlapLength)
            let requests = fixture.server.requests("/fresh.bin")
            // Every unfinished segment is asked for from its bytes on disk less the overlap, and no
            // request asks for bytes on disk but that overlap.
            let starts = Set(requests.compactMap(\.rangeStart))
            #expect(Set(saved.dropFirst().map { $0.start + $0.durable - overlap }).isSubset(of: starts))
            SegmentedCrashTests.expectNothingOnDiskAskedAgain(requests[...], missing: Self.missing(saved))
            // No `If-Range`: the old URL's validator means nothing on the new one.
            #expect(requests.allSatisfy { $0.header("If-Range") == nil })
            #expect(await !download.allEvents().contains(.restarted))
        }
    }

    /// A new URL whose file differs just before where one segment continues: that segment starts
    /// again from its first byte, the others keep their bytes.
    @Test func aNewURLRestartsOnlyTheSegmentThatDiffers() async throws {
        try await withFixture(SegmentedDownloadTests.segmented(4)) { fixture in
            let (download, saved) = try await Self.pausedDownload(fixture, "/old.bin")
            let last = try #require(saved.last)
            let second = Self.changed(last.start + last.durable - 10..<last.start + last.durable)
            let fresh = Self.serve(fixture, "/fresh.bin", second)
            try await download.setURL(fresh)

            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            let overlap = Int64(fixture.configuration.resumption.overlapLength)
            let requests = fixture.server.requests("/fresh.bin")
            let starts = Set(requests.compactMap(\.rangeStart))
            // Each segment continued; the last one, refused, started again from its first byte.
            #expect(Set(saved.dropFirst().map { $0.start + $0.durable - overlap } + [last.start]).isSubset(of: starts))
            SegmentedCrashTests.expectNothingOnDiskAskedAgain(
                requests.filter { $0.rangeStart != last.start }[...], missing: Self.missing(saved))
            #expect(!starts.contains(0))
            #expect(await !download.allEvents().contains(.restarted))
        }
    }

    /// What a `kill -9` leaves is the record on disk: with several connections, each one
    /// checkpoints after ``CheckpointSettings/bytesPerConnection`` bytes of its own, so a relaunch
    /// asks again for about that much per connection at most (plus the chunk in hand).
    @Test func eachConnectionCheckpointsAfterAQuarterMebibyteOfItsOwn() async throws {
        try await withFixture(SegmentedDownloadTests.segmented(4)) { fixture in
            let overlap = Int64(fixture.configuration.resumption.overlapLength)
            let own: Int64 = 2_500_000
            let body = Body.pattern(count: 12_000_000, seed: 1421)
            // Each segment's request stops after 2.5 MB of its own (the one after the first
            // segment asks for the overlap before it first).
            let url = fixture.serve("/kill.bin", body) {
                $0.faults = [.none] + Array(repeating: .holdAfter(own + overlap), count: 4)
            }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("kill.bin")))
            await fixture.server.waitForRequests(5, path: "/kill.bin")
            await download.waitForBytes(256 * SegmentedDownloadTests.kibibyte + 4 * own + 3 * overlap)
            let requests = fixture.server.requests("/kill.bin").dropFirst()
            let saved = try #require(fixture.storedRecord(download.id)?.resume.segments)
            fixture.server.release("/kill.bin")
            // The default: 256 KiB per connection.
            let perConnection: Int64 = 256 << 10
            #expect(fixture.configuration.storage.checkpoints.bytesPerConnection == perConnection)
            let chunk: Int64 = 512 << 10
            for segment in saved.dropFirst() {
                let request = try #require(
                    requests.first { $0.rangeStart == segment.start || $0.rangeStart == segment.start - overlap })
                let received = (request.rangeStart ?? 0) + request.bodyBytesSent - segment.start
                #expect(
                    received - segment.durable < perConnection + chunk,
                    "segment \(segment.start): \(received) received, \(segment.durable) durable")
            }
            try body.expectMatches(try await download.fileURL)
        }
    }
}
