@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server without validators (or with a weak `ETag` only) cannot say with `If-Range` whether its
/// file is still the one the partial holds: the request asks for the bytes before the resume
/// point again and compares them with those on disk before writing anything.
@Suite(.timeLimit(.minutes(2)))
struct OverlapVerificationTests {
    static let length = 1_000_000
    static let resumePoint: Int64 = 400_000
    static let overlap: Int64 = 64 << 10

    /// The first version of the file.
    static let first = Body.pattern(count: Int64(length), seed: 900).bytes(0..<Int64(length))

    /// The file with the bytes in `changed` replaced: another version of the same length.
    static func changed(_ changed: Range<Int>) -> Data {
        var data = first
        for index in changed {
            data[index] = ~data[index]
        }
        return data
    }

    /// Serves `data` at `path` without `ETag` or `Last-Modified` (changed by `configure`).
    @discardableResult
    static func serveWithoutValidators(
        _ fixture: Fixture, _ path: String, _ data: Data, _ configure: (inout Route) -> Void = { _ in }
    ) -> URL {
        fixture.serve(path, .data(data)) {
            $0.etag = nil
            $0.lastModified = nil
            configure(&$0)
        }
    }

    /// A download of `path` paused with exactly ``resumePoint`` bytes on disk.
    static func pausedDownload(_ fixture: Fixture, _ request: DownloadRequest) async -> Download {
        let download = await fixture.manager.download(request)
        await download.waitForBytes(resumePoint)
        await download.pause()
        #expect(download.currentProgress.bytesReceived == resumePoint)
        return download
    }

    static func request(
        _ fixture: Fixture, _ path: String, onServerFileChange: DownloadRequest.ServerFileChangePolicy = .restart
    ) -> DownloadRequest {
        DownloadRequest(
            URLRequest(url: fixture.server.url(path)), to: .file(fixture.file("file.bin")),
            onServerFileChange: onServerFileChange)
    }

    @Test func anUnchangedFileIsContinuedAfterItsOverlapMatched() async throws {
        try await withFixture { fixture in
            Self.serveWithoutValidators(fixture, "/same", Self.first) { $0.faults = [.holdAfter(Self.resumePoint)] }
            let download = await Self.pausedDownload(fixture, Self.request(fixture, "/same"))

            await download.resume()
            try expectFile(await download.fileURL, holds: Self.first)
            let requests = fixture.server.requests("/same")
            #expect(requests.map(\.rangeStart) == [0, Self.resumePoint - Self.overlap])
            #expect(requests[1].header("If-Range") == nil)
            #expect(requests[1].status == 206)
            let events = await download.allEvents()
            #expect(events.contains(.resumed(at: Self.resumePoint)))
            #expect(!events.contains(.restarted))
        }
    }

    /// A change inside the overlap is seen before anything is written: the download starts over
    /// and ends as the new version, whole.
    @Test func aChangeNearTheResumePointStartsOver() async throws {
        try await withFixture { fixture in
            let path = "/near"
            Self.serveWithoutValidators(fixture, path, Self.first) { $0.faults = [.holdAfter(Self.resumePoint)] }
            let download = await Self.pausedDownload(fixture, Self.request(fixture, path))
            let second = Self.changed(380_000..<380_010)
            Self.serveWithoutValidators(fixture, path, second)

            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            let requests = fixture.server.requests(path)
            #expect(requests.map(\.rangeStart) == [0, Self.resumePoint - Self.overlap, 0])
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    /// A change further back than the overlap, in a file of the same length, is what the check
    /// cannot see; an expected digest does.
    @Test func aChangeFarBeforeTheResumePointIsCaughtByTheExpectedDigest() async throws {
        try await withFixture { fixture in
            let path = "/far"
            let second = Self.changed(1_000..<1_010)
            Self.serveWithoutValidators(fixture, path, Self.first) { $0.faults = [.holdAfter(Self.resumePoint)] }
            var request = Self.request(fixture, path)
            var digest = RunningDigest(.sha256)
            second.withUnsafeBytes { digest.update($0) }
            request.expectedDigest = .sha256(digest.finalized().hexString)
            let download = await Self.pausedDownload(fixture, request)
            Self.serveWithoutValidators(fixture, path, second)

            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .integrityCheckFailed)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("file.bin").path))
            // The rejected bytes were discarded: resuming downloads the new version whole.
            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            #expect(fixture.server.requests(path).map(\.rangeStart) == [0, Self.resumePoint - Self.overlap, 0])
        }
    }

    @Test func aChangedFileFailsWhenTheRequestSaysSoAndResumingStartsOver() async throws {
        try await withFixture { fixture in
            let path = "/fail"
            Self.serveWithoutValidators(fixture, path, Self.first) { $0.faults = [.holdAfter(Self.resumePoint)] }
            let download = await Self.pausedDownload(fixture, Self.request(fixture, path, onServerFileChange: .fail))
            let second = Self.changed(399_990..<400_000)
            Self.serveWithoutValidators(fixture, path, second)

            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .serverFileChanged)
            #expect(error.reason.contains("before byte 400000"))
            // Nothing was written: the partial holds the old bytes, as they were.
            let partial = fixture.file("file.bin").appendingPathExtension("partial")
            #expect(try Data(contentsOf: partial) == Self.first.prefix(Int(Self.resumePoint)))

            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            #expect(fixture.server.requests(path).map(\.rangeStart) == [0, Self.resumePoint - Self.overlap, 0])
        }
    }

    /// A weak `ETag` may not be used in `If-Range`: the overlap guards the range instead.
    @Test func aWeakETagAloneIsGuardedByTheOverlap() async throws {
        try await withFixture { fixture in
            let path = "/weak"
            let serve = { (data: Data, faults: [Fault]) in
                fixture.serve(path, .data(data)) {
                    $0.etag = "W/\"weak\""
                    $0.lastModified = nil
                    $0.faults = faults
                }
            }
            _ = serve(Self.first, [.holdAfter(Self.resumePoint)])
            let download = await Self.pausedDownload(fixture, Self.request(fixture, path))
            let second = Self.changed(390_000..<390_001)
            _ = serve(second, [])

            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            let requests = fixture.server.requests(path)
            #expect(requests[1].rangeStart == Self.resumePoint - Self.overlap)
            #expect(requests[1].header("If-Range") == nil)
            #expect(requests.map(\.rangeStart) == [0, Self.resumePoint - Self.overlap, 0])
        }
    }

    /// A file that changes between two consecutive ranges of one download, with no interruption,
    /// is not stitched from two versions.
    @Test func aChangeBetweenConsecutiveRangesIsSeen() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 300_000 }) { fixture in
            let path = "/ranges"
            let second = Self.changed(290_000..<290_100)
            Self.serveWithoutValidators(fixture, path, Self.first)
            // The new version replaces the old one while the first range is being sent.
            fixture.server.whenBodyBytesReach(200_000) {
                _ = Self.serveWithoutValidators(fixture, path, second)
            }
            let download = await fixture.manager.download(Self.request(fixture, path))
            try expectFile(await download.fileURL, holds: second)
            let requests = fixture.server.requests(path)
            #expect(
                requests.prefix(3).map { $0.header("Range") } == [
                    "bytes=0-299999", "bytes=\(300_000 - Self.overlap)-599999", "bytes=0-299999",
                ])
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    @Test func anOverlapOfZeroAppendsOnTheLengthAlone() async throws {
        try await withFixture({ $0.resumption.overlapLength = 0 }) { fixture in
            Self.serveWithoutValidators(fixture, "/off", Self.first) { $0.faults = [.holdAfter(Self.resumePoint)] }
            let download = await Self.pausedDownload(fixture, Self.request(fixture, "/off"))
            await download.resume()
            try expectFile(await download.fileURL, holds: Self.first)
            #expect(fixture.server.requests("/off").map(\.rangeStart) == [0, Self.resumePoint])
        }
    }

    /// The overlap is never more than the bytes on disk.
    @Test func theOverlapIsCappedByTheBytesOnDisk() async throws {
        try await withFixture { fixture in
            let path = "/short"
            Self.serveWithoutValidators(fixture, path, Self.first) { $0.faults = [.holdAfter(10_000)] }
            let download = await fixture.manager.download(Self.request(fixture, path))
            await download.waitForBytes(10_000)
            await download.pause()
            await download.resume()
            try expectFile(await download.fileURL, holds: Self.first)
            let requests = fixture.server.requests(path)
            #expect(requests.map { $0.header("Range") } == ["bytes=0-67108863", "bytes=0-"])
            #expect(requests.map(\.status) == [206, 206])
            #expect(await download.allEvents().contains(.resumed(at: 10_000)))
        }
    }
}

/// Expects the file at `url` to hold exactly `data`.
func expectFile(_ url: URL, holds data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let contents = try Data(contentsOf: url)
    #expect(contents.count == data.count, "the file has \(contents.count) bytes", sourceLocation: sourceLocation)
    #expect(contents == data, "the file is not the expected version", sourceLocation: sourceLocation)
}
