@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A server that answers `If-Range` with its whole file though nothing changed (some CDNs, as
/// ``Route/answersIfRangeInFull`` serves): its first such `200` is read on after the partial's
/// bytes matched, and the manager asks it with `Range` alone from then on, the overlap guarding
/// each range. A real change is caught by the bytes, and a changed tag or length starts over.
@Suite(.timeLimit(.minutes(2)))
struct IfRangeIgnoringServerTests {
    static let length: Int64 = 1_500_000

    /// Serves `body` at `path` as such a CDN does, the requests breaking as `faults` say.
    @discardableResult
    static func serveLikeACDN(_ fixture: Fixture, _ path: String, _ body: Body, faults: [Fault]) -> URL {
        fixture.serve(path, body) {
            $0.answersIfRangeInFull = true
            $0.faults = faults
        }
    }

    /// Downloads `url` until its request fails (a fault breaks it), and returns the download.
    static func interrupted(_ url: URL, to destination: URL, with manager: DownloadManager) async -> Download {
        let download = await manager.download(from: url, to: .file(destination))
        await #expect(throws: DownloadError.self) { try await download.fileURL }
        return download
    }

    static func tag(_ path: String) -> String { "\"\(StableHash.hex(path))\"" }

    /// The first resume gets the whole file and reads it on: nothing asked again from byte 0. A
    /// second break resumes with `Range` alone, and the server sends the rest and the overlap.
    @Test func readsTheWholeFileOnThenAsksWithRangeAlone() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: Self.length, seed: 4201)
            // An early close (FIN) loses no byte sent: the resume points are exact.
            let url = Self.serveLikeACDN(fixture, "/cdn", body, faults: [.closeAfter(400_000), .closeAfter(900_000)])
            let download = await Self.interrupted(url, to: fixture.file("cdn.bin"), with: fixture.manager)
            await download.resume()
            await #expect(throws: DownloadError.self) { try await download.fileURL }
            #expect(fileLength(fixture.file("cdn.bin.partial")) == 900_000)
            await download.resume()
            try body.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/cdn")
            #expect(requests.map(\.status) == [206, 200, 206])
            #expect(
                requests.map(\.rangeStart)
                    == [0, fixture.rangeStart(continuing: 400_000), fixture.rangeStart(continuing: 900_000)])
            #expect(requests.map { $0.header("If-Range") } == [nil, Self.tag("/cdn"), nil])
            // The 200's first 400,000 bytes were compared, the next 500,000 appended.
            #expect(requests[1].bodyBytesSent == 900_000)
            #expect(requests[2].bodyBytesSent == Self.length - fixture.rangeStart(continuing: 900_000))
            let events = await download.allEvents()
            #expect(!events.contains(.restarted))
            #expect(events.contains(.resumed(at: 400_000)))
        }
    }

    /// A 200 read on to its end completes the file: the whole file is what the server sent for
    /// that resume, and no request starts from byte 0 again. Another download from the same
    /// server, in the same manager, asks with `Range` alone.
    @Test func theFirstWholeFileCompletesAndTheServerIsRemembered() async throws {
        try await withFixture { fixture in
            let first = Body.pattern(count: Self.length, seed: 4202)
            let url = Self.serveLikeACDN(fixture, "/one", first, faults: [.closeAfter(400_000)])
            let download = await Self.interrupted(url, to: fixture.file("one.bin"), with: fixture.manager)
            await download.resume()
            try first.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/one")
            #expect(requests.map(\.status) == [206, 200])
            #expect(requests.map { $0.header("If-Range") } == [nil, Self.tag("/one")])
            #expect(requests[1].bodyBytesSent == Self.length)
            #expect(!(await download.allEvents()).contains(.restarted))

            let second = Body.pattern(count: Self.length, seed: 4203)
            let other = Self.serveLikeACDN(fixture, "/two", second, faults: [.closeAfter(300_000)])
            let next = await Self.interrupted(other, to: fixture.file("two.bin"), with: fixture.manager)
            await next.resume()
            try second.expectMatches(try await next.fileURL)
            let resumed = fixture.server.requests("/two")
            #expect(resumed.map(\.status) == [206, 206])
            #expect(resumed[1].header("If-Range") == nil)
            #expect(resumed[1].rangeStart == fixture.rangeStart(continuing: 300_000))
            #expect(resumed[1].bodyBytesSent == Self.length - fixture.rangeStart(continuing: 300_000))
        }
    }

    /// A file replaced behind the same tag and length (a lying server): the whole file's first
    /// bytes are not the partial's, so nothing is appended and the download starts over; the file
    /// is the new version, whole. Once the server is remembered, the overlap of a `Range` alone
    /// catches the same.
    @Test(arguments: [false, true])
    func aChangeBehindTheSameTagStartsOver(afterTheServerIsRemembered: Bool) async throws {
        try await withFixture { fixture in
            if afterTheServerIsRemembered {
                let earlier = Body.pattern(count: Self.length, seed: 4204)
                let url = Self.serveLikeACDN(fixture, "/earlier", earlier, faults: [.closeAfter(200_000)])
                let download = await Self.interrupted(url, to: fixture.file("earlier.bin"), with: fixture.manager)
                await download.resume()
                try earlier.expectMatches(try await download.fileURL)
            }
            let old = Body.pattern(count: Self.length, seed: 4205)
            let url = Self.serveLikeACDN(fixture, "/lie", old, faults: [.closeAfter(400_000)])
            let download = await Self.interrupted(url, to: fixture.file("lie.bin"), with: fixture.manager)
            let new = Body.pattern(count: Self.length, seed: 4206)
            Self.serveLikeACDN(fixture, "/lie", new, faults: [])
            await download.resume()
            try new.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/lie")
            #expect(requests.map(\.rangeStart) == [0, fixture.rangeStart(continuing: 400_000), 0])
            #expect(requests.map(\.status) == [206, afterTheServerIsRemembered ? 206 : 200, 206])
            #expect(requests[1].header("If-Range") == (afterTheServerIsRemembered ? nil : Self.tag("/lie")))
            #expect(requests[2].bodyBytesSent == Self.length)
            #expect(await download.allEvents().contains(.restarted))
        }
    }

    /// A 200 with another tag or length is another file: it replaces the partial as before, and
    /// the server is not remembered (another download still sends `If-Range`).
    @Test(arguments: [false, true])
    func anotherTagOrLengthStartsOverAsBefore(changesLength: Bool) async throws {
        try await withFixture { fixture in
            let old = Body.pattern(count: Self.length, seed: 4207)
            let url = Self.serveLikeACDN(fixture, "/changed", old, faults: [.closeAfter(400_000)])
            let download = await Self.interrupted(url, to: fixture.file("changed.bin"), with: fixture.manager)
            let new = Body.pattern(count: changesLength ? Self.length + 1000 : Self.length, seed: 4207)
            fixture.serve("/changed", new) {
                $0.answersIfRangeInFull = true
                if !changesLength { $0.etag = "\"another\"" }
            }
            await download.resume()
            try new.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/changed")
            #expect(requests.map(\.status) == [206, 200])
            #expect(requests[1].header("If-Range") == Self.tag("/changed"))
            #expect(requests[1].bodyBytesSent == new.count)
            #expect(await download.allEvents().contains(.restarted))

            let body = Body.pattern(count: Self.length, seed: 4208)
            let other = Self.serveLikeACDN(fixture, "/after", body, faults: [.closeAfter(300_000)])
            let next = await Self.interrupted(other, to: fixture.file("after.bin"), with: fixture.manager)
            await next.resume()
            try body.expectMatches(try await next.fileURL)
            #expect(fixture.server.requests("/after").map { $0.header("If-Range") } == [nil, Self.tag("/after")])
        }
    }

    /// The memory is the manager's: a new manager sends `If-Range` to the same server again (and
    /// reads its whole file on again).
    @Test func aNewManagerSendsIfRangeAgain() async throws {
        try await withFixture { fixture in
            let first = Body.pattern(count: Self.length, seed: 4209)
            let url = Self.serveLikeACDN(fixture, "/first", first, faults: [.closeAfter(400_000)])
            let download = await Self.interrupted(url, to: fixture.file("first.bin"), with: fixture.manager)
            await download.resume()
            try first.expectMatches(try await download.fileURL)

            var configuration = fixture.configuration
            configuration.identifier = "test-\(UUID().uuidString)"
            configuration.storage.directory = fixture.file("other-store")
            let manager = try DownloadManager(configuration: configuration)
            let second = Body.pattern(count: Self.length, seed: 4210)
            let other = Self.serveLikeACDN(fixture, "/second", second, faults: [.closeAfter(300_000)])
            let next = await Self.interrupted(other, to: fixture.file("second.bin"), with: manager)
            await next.resume()
            try second.expectMatches(try await next.fileURL)
            let requests = fixture.server.requests("/second")
            #expect(requests.map { $0.header("If-Range") } == [nil, Self.tag("/second")])
            #expect(requests.map(\.status) == [206, 200])
            #expect(requests[1].bodyBytesSent == Self.length)
        }
    }

    /// Segments ask with `If-Range` too: a segment answered with the whole file of the same version
    /// asks for its range again at once, with `Range` alone; nothing starts from byte 0 again.
    @Test func segmentsAskAgainWithRangeAlone() async throws {
        try await withFixture(SegmentedDownloadTests.segmented(3)) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 4211)
            let url = Self.serveLikeACDN(fixture, "/parts", body, faults: [])
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("parts.bin")))
            try body.expectMatches(try await download.fileURL)

            let events = await download.allEvents()
            #expect(!events.contains(.restarted))

            let requests = fixture.server.requests("/parts")
            #expect(requests.filter { $0.rangeStart == 0 }.count == 1)
            // Each segment request with If-Range got the whole file (and was stopped once seen),
            // then asked again without it; at most one per connection.
            let guarded = requests.filter { $0.header("If-Range") != nil }.map(\.status)
            let unguarded = requests.dropFirst().filter { $0.header("If-Range") == nil }.map(\.status)
            #expect(!guarded.isEmpty)
            #expect(guarded.count <= 3)
            #expect(Set(guarded) == [200])
            #expect(Set(unguarded) == [206])
        }
    }
}
