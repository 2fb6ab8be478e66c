@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A large file comes in bounded ranges, one request after another (see
/// `maximumBytesPerRequest`).
@Suite(.timeLimit(.minutes(2)))
struct RangedRequestsTests {
    @Test func aLargeFileComesInConsecutiveRanges() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 1_000_000 }) { fixture in
            let body = Body.pattern(count: 3_500_000, seed: 80)
            let url = fixture.serve("/large", body)
            let destination = fixture.file("large.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))
            try body.expectMatches(try await download.fileURL)

            let requests = fixture.server.requests("/large")
            // Each range after the first asks for the overlap before it again, to compare it.
            let from = fixture.rangeStart(continuing:)
            #expect(
                requests.map { $0.header("Range") } == [
                    "bytes=0-999999", "bytes=\(from(1_000_000))-1999999", "bytes=\(from(2_000_000))-2999999",
                    "bytes=\(from(3_000_000))-",
                ])
            #expect(requests.map(\.status) == [206, 206, 206, 206])
            #expect(requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"\(StableHash.hex("/large"))\"" })
            // One request on one connection after the other.
            #expect(Set(requests.map(\.connection)).count == 1)
            // The ranges are one download to its observers.
            #expect(await download.allEvents() == [.queued, .running, .completed(destination)])
        }
    }

    @Test func aPauseInsideARangeResumesWithinIt() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 1_000_000 }) { fixture in
            let body = Body.pattern(count: 2_500_000, seed: 81)
            let from = fixture.rangeStart(continuing:)
            let overlap = 1_000_000 - from(1_000_000)
            // The second range holds once 300,000 new bytes are on disk.
            let url = fixture.serve("/paused", body) { $0.faults = [.none, .holdAfter(300_000 + overlap)] }
            let download = await fixture.manager.download(from: url, to: .file(fixture.file("paused.bin")))
            await download.waitForBytes(1_300_000)
            await download.pause()
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(
                fixture.server.requests("/paused").map { $0.header("Range") } == [
                    "bytes=0-999999", "bytes=\(from(1_000_000))-1999999", "bytes=\(from(1_300_000))-2299999",
                    "bytes=\(from(2_300_000))-",
                ])
        }
    }

    @Test func aServerWithoutRangesSendsEverythingInOneResponse() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 1_000_000 }) { fixture in
            let body = Body.pattern(count: 2_500_000, seed: 82)
            let url = fixture.serve("/whole", body) { $0.supportsRanges = false }
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("w.bin"))))
            #expect(fixture.server.requests("/whole").map(\.status) == [200])
        }
    }

    @Test func withoutALimitOneRequestAsksForEverything() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 0 }) { fixture in
            let body = Body.pattern(count: 2_500_000, seed: 83)
            let url = fixture.serve("/one", body)
            try body.expectMatches(
                try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("one.bin"))))
            let requests = fixture.server.requests("/one")
            #expect(requests.map(\.status) == [200])
            #expect(requests.first?.header("Range") == nil)
        }
    }

    /// By default only Linux URLSession, which keeps memory per chunk until a request ends, asks
    /// in ranges (of 64 MiB); libcurl asks for the whole file in one request: no stitch point.
    @Test func byDefaultOnlyLinuxURLSessionAsksInRanges() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = nil }) { fixture in
            let body = Body.pattern(count: 100_000, seed: 84)
            let url = fixture.serve("/auto", body)
            try body.expectMatches(
                try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("auto.bin"))))
            let range = fixture.server.requests("/auto").first?.header("Range")
            #if canImport(FoundationNetworking)
                #expect(range == (TransportUnderTest.isCurl ? nil : "bytes=0-\((64 << 20) - 1)"))
            #else
                #expect(range == nil)
            #endif
        }
    }

    @Test func anEmptyFileIsDelivered() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/empty", .data(Data()))
            let file = try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("empty.bin")))
            #expect(fileLength(file) == 0)
            #expect(fixture.listing() == ["empty.bin"])
        }
    }
}
