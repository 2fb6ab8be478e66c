@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A process killed with SIGKILL again and again while it downloads one file over four
/// connections loses nothing: each launch continues every segment from the bytes its record says
/// are on disk, never asks for those again, and the file ends byte-identical, its expected
/// SHA-256 checked. Every other launch hashes with Downstream's Swift code
/// (`DOWNSTREAM_DIGESTS=swift`), the others with the platform's: each goes on from the digest
/// state the other saved.
@Suite(.timeLimit(.minutes(3)))
struct SegmentedCrashTests {
    static let fileSize: Int64 = 6_000_000
    static let kills = 8

    @Test func aSegmentedDownloadKilledAtRandomMomentsLosesNothing() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: Self.fileSize, seed: 1410)
        let path = "/crash/segmented.bin"
        CrashTests.serve(body, at: path, bytesPerSecond: 3_000_000, on: server)
        let (root, files, store) = try CrashTests.makeDirectories("segmented")
        defer { try? FileManager.default.removeItem(at: root) }
        let client = try ChildProcess.executable("DownstreamTestClient")
        let arguments = [
            "many", "--store", store.path, "--directory", files.path, "--checkpoint-bytes", "65536",
            "--connections", "4", "--minimum-segment", "262144",
            "--sha256", ExpectedDigestTests.digest(.sha256, of: body).hexValue, server.url(path).absoluteString,
        ]
        let partial = files.appendingPathComponent("segmented.bin.partial")

        let thresholds = (0..<Self.kills).map { _ in
            Int64.random(in: Self.fileSize / 20...(Self.fileSize * 9 / 10))
        }.sorted()
        var platformDigests = ProcessInfo.processInfo.environment
        platformDigests["DOWNSTREAM_DIGESTS"] = nil
        var swiftDigests = platformDigests
        swiftDigests["DOWNSTREAM_DIGESTS"] = "swift"
        var segmentedKills = 0
        for (launch, threshold) in thresholds.enumerated() {
            let missing = Self.missingParts(store: store, partial: partial)
            if missing.count > 1 { segmentedKills += 1 }
            let logged = server.requests().count
            let run = try ChildProcess.Running(
                client, arguments, environment: launch % 2 == 0 ? swiftDigests : platformDigests)
            server.whenBodyBytesReach(threshold) { run.kill() }
            #expect(await run.ending() == .signalled(SIGKILL))
            Self.expectNothingOnDiskAskedAgain(server.requests().dropFirst(logged), missing: missing)
        }

        let missing = Self.missingParts(store: store, partial: partial)
        let logged = server.requests().count
        let (status, output) = try await ChildProcess.run(client, arguments)
        #expect(status == 0, "\(output)")
        let launched = server.requests().dropFirst(logged)
        Self.expectNothingOnDiskAskedAgain(launched, missing: missing)
        // The launch that finished asked for the start of every missing part (after the overlap
        // before it, where that is on disk).
        let overlap = Int64(DownloadManager.Configuration.Resumption().overlapLength)
        for part in missing {
            #expect(
                launched.contains {
                    ($0.rangeStart ?? 0) <= part.lowerBound && part.lowerBound - ($0.rangeStart ?? 0) <= overlap
                },
                "no request for the missing bytes from \(part.lowerBound)")
        }
        #expect(segmentedKills >= 1, "at least one kill came after the file was split")
        try body.expectMatches(files.appendingPathComponent("segmented.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.path) == ["segmented.bin"])
        #expect(CrashTests.isEmptyStore(store))
    }

    /// The parts of the file a launch must still ask for, judging from the disk alone: each
    /// segment's bytes past those its record says are durable (and the file holds), or, before the
    /// file was split, everything past the partial file's end.
    static func missingParts(store: URL, partial: URL) -> [Range<Int64>] {
        let record = DownloadStore.records(in: store).first
        let length = fileLength(partial) ?? 0
        guard let record, record.resume.isResumable else { return [0..<fileSize] }
        guard let segments = record.resume.segments else { return [min(length, fileSize)..<fileSize] }
        return segments.compactMap { segment in
            #expect(segment.start + segment.durable <= length, "the record says more is durable than the file has")
            let next = segment.start + min(segment.durable, max(0, length - segment.start))
            return next < segment.end ? next..<segment.end : nil
        }
    }

    /// No request of a launch asks for bytes that were on disk, by its record, when it started,
    /// but the overlap before a missing part, to compare it.
    static func expectNothingOnDiskAskedAgain(_ requests: ArraySlice<RecordedRequest>, missing: [Range<Int64>]) {
        let overlap = Int64(DownloadManager.Configuration.Resumption().overlapLength)
        for request in requests {
            let start = request.rangeStart ?? 0
            #expect(
                missing.contains { $0.lowerBound - overlap <= start && start < $0.upperBound },
                "a request from byte \(start) asks again for bytes on disk (missing: \(missing))")
        }
    }
}
