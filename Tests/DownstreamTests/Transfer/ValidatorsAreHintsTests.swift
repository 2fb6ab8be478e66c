@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real servers derive their validators from the file's modification time and size (nginx's
/// strong ETag, Apache's default, `Last-Modified`): a file replaced with `cp -p`, `rsync -a` or
/// `touch -r` keeps them. A validator decides what a continuation asks for (`If-Range`); the
/// overlap decides what it believes.
@Suite(.timeLimit(.minutes(2)))
struct ValidatorsAreHintsTests {
    typealias Versions = OverlapVerificationTests

    /// The validators a replaced file keeps: a strong ETag, a `Last-Modified` date, or both.
    enum KeptValidator: String, CaseIterable, Sendable {
        case strongETag, lastModified, both
    }

    /// Serves `data` at `path` with the same validators whatever the version.
    @discardableResult
    static func serve(
        _ fixture: Fixture, _ path: String, _ data: Data, keeping validator: KeptValidator,
        faults: [Fault] = []
    ) -> URL {
        fixture.serve(path, .data(data)) {
            $0.etag = validator == .lastModified ? nil : "\"5f3a1c-f4240\""
            $0.lastModified = validator == .strongETag ? nil : "Sun, 01 Nov 2026 10:00:00 GMT"
            $0.faults = faults
        }
    }

    /// A file replaced while paused, with the same length and validators: `If-Range` lets the
    /// range through, the overlap sees the change, the download starts over and delivers the new
    /// version whole.
    @Test(arguments: KeptValidator.allCases)
    func aReplacementThatKeepsItsValidatorsIsNotStitched(_ validator: KeptValidator) async throws {
        try await withFixture { fixture in
            let path = "/kept"
            Self.serve(fixture, path, Versions.first, keeping: validator, faults: [.holdAfter(Versions.resumePoint)])
            let download = await Versions.pausedDownload(fixture, Versions.request(fixture, path))
            let second = Versions.changed(390_000..<390_001)
            Self.serve(fixture, path, second, keeping: validator)

            await download.resume()
            try expectFile(await download.fileURL, holds: second)
            let requests = fixture.server.requests(path)
            #expect(requests.map(\.rangeStart) == [0, fixture.rangeStart(continuing: Versions.resumePoint), 0])
            // The continuation was guarded by the validator, and the server let it through.
            #expect(requests[1].header("If-Range") != nil)
            #expect(requests[1].status == 206)
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    /// With `.fail`, the error says that the validator did not see the change; nothing was
    /// written.
    @Test func theErrorSaysTheValidatorDidNotChange() async throws {
        try await withFixture { fixture in
            let path = "/fail"
            Self.serve(fixture, path, Versions.first, keeping: .both, faults: [.holdAfter(Versions.resumePoint)])
            let download = await Versions.pausedDownload(
                fixture, Versions.request(fixture, path, onServerFileChange: .fail))
            Self.serve(fixture, path, Versions.changed(399_999..<400_000), keeping: .both)

            await download.resume()
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .serverFileChanged)
            #expect(error.reason.contains("although the file's validator \"5f3a1c-f4240\" did not change"))
            let partial = fixture.file("file.bin").appendingPathExtension("partial")
            #expect(try Data(contentsOf: partial) == Versions.first.prefix(Int(Versions.resumePoint)))
        }
    }

    /// A file replaced between two consecutive ranges of one uninterrupted download, validators
    /// kept: the next range's overlap sees it.
    @Test func aReplacementBetweenRangesThatKeepsItsValidatorsIsNotStitched() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 300_000 }) { fixture in
            let path = "/ranges"
            let second = Versions.changed(290_000..<290_100)
            Self.serve(fixture, path, Versions.first, keeping: .both)
            // The new version replaces the old one while the first range is being sent.
            fixture.server.whenBodyBytesReach(200_000) {
                _ = Self.serve(fixture, path, second, keeping: .both)
            }
            let download = await fixture.manager.download(Versions.request(fixture, path))
            try expectFile(await download.fileURL, holds: second)
            let requests = fixture.server.requests(path)
            #expect(
                requests.prefix(3).map { $0.header("Range") } == [
                    "bytes=0-299999", "bytes=\(fixture.rangeStart(continuing: 300_000))-599999", "bytes=0-299999",
                ])
            #expect(await download.allEvents().contains(.restarted))
        }
    }
}
