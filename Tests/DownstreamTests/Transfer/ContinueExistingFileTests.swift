@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `.continueExisting` (wget's `--continue`, curl's `-C -`): a file another program left at the
/// destination is continued from its end once the server's bytes before that end matched its
/// own; otherwise it is left exactly as it was, and the download fails with a reason.
@Suite(.timeLimit(.minutes(1)))
struct ContinueExistingFileTests {
    static let length: Int64 = 1_000_000
    static let body = Body.pattern(count: length, seed: 4_501)
    static let overlap: Int64 = 64 << 10

    static func download(_ fixture: Fixture, _ path: String, to name: String = "file.bin") async -> Download {
        await fixture.manager.download(
            from: fixture.server.url(path), to: .file(fixture.file(name), ifExists: .continueExisting))
    }

    /// Expects the download to fail as a file not continued, `reason` in its words, keeping nothing.
    static func expectNotContinued(
        _ download: Download, saying reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let error = try await #require(throws: DownloadError.self, sourceLocation: sourceLocation) {
            try await download.fileURL
        }
        #expect(error.kind == .existingFileNotContinued, sourceLocation: sourceLocation)
        #expect(!error.isResumable, sourceLocation: sourceLocation)
        #expect(error.reason.contains(reason), "\(error.reason)", sourceLocation: sourceLocation)
        #expect(error.description.contains("left as it was"), sourceLocation: sourceLocation)
    }

    @Test func aFileAnotherProgramLeftIsContinuedFromItsEnd() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body)
            let kept: Int64 = 300_000
            try PlantedFile.plant(Self.body.bytes(0..<kept), at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            try Self.body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/f")
            #expect(requests.map(\.rangeStart) == [kept - Self.overlap])
            #expect(requests.map(\.status) == [206])
            let events = await download.allEvents()
            #expect(events.contains(.resumed(at: kept)))
            #expect(!events.contains(.restarted))
            #expect(fixture.listing() == ["file.bin"])
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    /// Bytes that differ anywhere in the compared end: another file. Nothing is written, not even
    /// a partial file, and no record is left.
    @Test func aFileWhoseLastBytesDifferIsLeftAsItWas() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body)
            var mine = Self.body.bytes(0..<300_000)
            mine[299_000] = ~mine[299_000]
            try PlantedFile.plant(mine, at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            try await Self.expectNotContinued(download, saying: "not the start of the server's file")
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: mine)
            #expect(fixture.listing() == ["file.bin"])
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    /// A server that answers a range with its whole file cannot continue one: wget refuses too,
    /// rather than start over over the user's bytes.
    @Test func aServerWithoutRangesLeavesTheFileAsItWas() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body) { $0.supportsRanges = false }
            let mine = Self.body.bytes(0..<300_000)
            try PlantedFile.plant(mine, at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            try await Self.expectNotContinued(download, saying: "the server sends no ranges")
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: mine)
            #expect(fixture.listing() == ["file.bin"])
        }
    }

    @Test func aFileLongerThanTheServersIsLeftAsItWas() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body)
            let mine = Self.body.bytes(0..<Self.length) + Data(repeating: 7, count: Int(Self.overlap) + 10)
            try PlantedFile.plant(mine, at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            try await Self.expectNotContinued(download, saying: "the server's file only \(Self.length)")
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: mine)
        }
    }

    /// A file as long as the server's whose last bytes match is the download's file: nothing is
    /// written, the file is not even renamed (its time stays).
    @Test func aFileAsLongAsTheServersIsTheDownloadsFile() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body)
            let whole = Self.body.bytes(0..<Self.length)
            try PlantedFile.plant(whole, at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            #expect(try await download.fileURL.path == fixture.file("file.bin").path)
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: whole)
            #expect(fixture.server.requests("/f").map(\.rangeStart) == [Self.length - Self.overlap])
            #expect(fixture.listing() == ["file.bin"])
            #expect(fixture.storedRecords().isEmpty)
        }
    }

    /// A file shorter than the overlap is compared whole: the request asks from the first byte, and
    /// even a server that sends no ranges continues it (its 200 repeats the file's bytes first).
    @Test func aSmallFileIsComparedWholeEvenWithoutRanges() async throws {
        try await withFixture { fixture in
            let small = Body.pattern(count: 150_000, seed: 4_502)
            fixture.serve("/small", small) { $0.supportsRanges = false }
            try PlantedFile.plant(small.bytes(0..<20_000), at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/small")
            try small.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/small")
            #expect(requests.map(\.status) == [200])
            #expect(requests.map(\.rangeStart) == [0])
            #expect(await download.allEvents().contains(.resumed(at: 20_000)))
        }
    }

    @Test func aSmallFileThatDiffersIsLeftAsItWas() async throws {
        try await withFixture { fixture in
            let small = Body.pattern(count: 150_000, seed: 4_503)
            fixture.serve("/small", small)
            var mine = small.bytes(0..<20_000)
            mine[0] = ~mine[0]
            try PlantedFile.plant(mine, at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/small")
            try await Self.expectNotContinued(download, saying: "not the start of the server's file")
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: mine)
        }
    }

    /// Until the server's bytes matched the file's last ones, the file is not the download's: a
    /// pause in the middle of the comparison leaves it where it was, and the resume compares again.
    @Test func aPauseBeforeTheBytesMatchedLeavesTheFileWhereItWas() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body) { $0.faults = [.holdAfter(1_000)] }
            let kept: Int64 = 300_000
            let mine = Self.body.bytes(0..<kept)
            try PlantedFile.plant(mine, at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            #expect(await fixture.server.waitForBodyBytes(1_000))
            await download.pause()
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: mine)
            #expect(fixture.listing() == ["file.bin"])

            await download.resume()
            try Self.body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/f").map(\.rangeStart) == [kept - Self.overlap, kept - Self.overlap])
        }
    }

    /// Once continued, the file is the download's partial file: a pause keeps its bytes there, and
    /// the resume continues them as any download's.
    @Test func aPauseAfterTheBytesMatchedKeepsThemAsThePartialFile() async throws {
        try await withFixture { fixture in
            let kept: Int64 = 300_000
            fixture.serve("/f", Self.body) { $0.faults = [.holdAfter(Self.overlap + 100_000)] }
            try PlantedFile.plant(Self.body.bytes(0..<kept), at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            await download.waitForBytes(kept + 100_000)
            await download.pause()
            #expect(!FileManager.default.fileExists(atPath: fixture.file("file.bin").path))
            #expect(fileLength(download.partialFileURL) == kept + 100_000)

            await download.resume()
            try Self.body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/f").map(\.rangeStart) == [kept - Self.overlap, kept + 100_000 - Self.overlap])
        }
    }

    /// With several connections, the first request is one segment's worth after the file: its
    /// answer shows the rest can be split, and the rest comes in segments.
    @Test func theRestComesInSegmentsWhenConnectionsAllowIt() async throws {
        try await withFixture { fixture in
            let kept: Int64 = 300_000
            // The four segment requests stop early until the test has seen them all: they are at
            // once, over four connections.
            let url = fixture.serve("/f", Self.body) {
                $0.faults = [.none] + Array(repeating: .holdAfter(1_000), count: 4)
            }
            try PlantedFile.plant(Self.body.bytes(0..<kept), at: fixture.file("file.bin"))
            var request = DownloadRequest(url: url, to: .file(fixture.file("file.bin"), ifExists: .continueExisting))
            request.maximumConnections = 4
            request.minimumSegmentSize = 100_000

            let download = await fixture.manager.download(request)
            #expect(await fixture.server.waitForRequests(5, path: "/f"))
            fixture.server.release("/f")
            try Self.body.expectMatches(try await download.fileURL)
            let requests = fixture.server.requests("/f")
            #expect(requests.first?.rangeStart == kept - Self.overlap)
            #expect(requests.first?.rangeEnd == kept + 100_000 - 1)
            // The rest, 600,000 bytes, in four segments of 150,000 (the first continues the bytes
            // on disk: it asks for the overlap before them again).
            #expect(
                requests.dropFirst().compactMap(\.rangeStart).sorted() == [
                    400_000 - Self.overlap, 550_000, 700_000, 850_000,
                ])
            #expect(Set(requests.dropFirst().map(\.connection)).count == 4)
        }
    }

    /// An empty file has nothing to compare: it is replaced by the whole file.
    @Test func anEmptyFileBecomesTheWholeFile() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body)
            try PlantedFile.plant(Data(), at: fixture.file("file.bin"))

            let download = await Self.download(fixture, "/f")
            try Self.body.expectMatches(try await download.fileURL)
            // (From the first byte: the fixture asks in ranges of 64 MiB.)
            #expect(fixture.server.requests("/f").map(\.rangeStart) == [0])
        }
    }

    /// Without the policy, the same file fails the download before any request, as before.
    @Test func withoutThePolicyTheFileFailsTheDownloadBeforeAnyRequest() async throws {
        try await withFixture { fixture in
            fixture.serve("/f", Self.body)
            let mine = Self.body.bytes(0..<300_000)
            try PlantedFile.plant(mine, at: fixture.file("file.bin"))

            let download = await fixture.manager.download(
                from: fixture.server.url("/f"), to: .file(fixture.file("file.bin")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .destinationExists)
            #expect(fixture.server.requests("/f").isEmpty)
            try PlantedFile.expectUntouched(fixture.file("file.bin"), holds: mine)
        }
    }
}

/// What a response to a request that continues another program's file becomes.
@Suite struct ContinuedFileDecisionTests {
    /// A request continuing a file of 100,000 bytes, from 64 KiB before its end.
    let plan: AttemptPlan = {
        var plan = AttemptPlan(
            offset: 100_000, overlap: 64 << 10, end: nil, validator: Validator(), expectedLength: nil,
            onServerFileChange: .restart)
        plan.continuedFile = "/tmp/file.bin"
        return plan
    }()

    func reason(_ head: ResponseHead) -> String? {
        guard case .fail(let error) = ResponseDecision.decide(head, for: plan), error.kind == .existingFileNotContinued,
            error.path == "/tmp/file.bin", !error.isResumable
        else { return nil }
        return error.reason
    }

    @Test func aRangeFromTheOverlapIsWrittenAfterItMatched() {
        let head = ResponseHead(status: 206, contentRange: "bytes 34464-199999/200000")
        #expect(
            ResponseDecision.decide(head, for: plan)
                == .write(
                    .init(
                        start: 34_464, end: 200_000, totalLength: 200_000, discardsPartial: false, isResumable: true,
                        verifiedPrefix: 65_536)))
    }

    @Test func whatWouldStartOverFailsInstead() {
        #expect(reason(ResponseHead(status: 200, contentLength: 200_000))?.contains("sends no ranges") == true)
        #expect(
            reason(ResponseHead(status: 206, contentRange: "bytes 0-199999/200000"))?.contains("does not continue it")
                == true)
        #expect(
            reason(ResponseHead(status: 416, contentRange: "bytes */50000"))
                == "it has 100000 bytes, and the server's file only 50000")
        #expect(
            reason(ResponseHead(status: 206, contentRange: "bytes 34464-79999/80000"))
                == "it has 100000 bytes, and the server's file only 80000")
    }

    @Test func otherFailuresStayWhatTheyAre() {
        #expect(ResponseDecision.decide(ResponseHead(status: 404), for: plan) == .fail(.httpStatus(404)))
    }
}
