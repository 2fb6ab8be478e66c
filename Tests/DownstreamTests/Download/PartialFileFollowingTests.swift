@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A reader that follows a download's partial file while it grows (dl's `-O -`): it finds the file
/// at ``Download/partialFileURL``, and with a write buffer of 1 byte finds each chunk there as
/// soon as the progress counts it.
@Suite(.timeLimit(.minutes(1)))
struct PartialFileFollowingTests {
    @Test func theBytesCountedAreInThePartialFileWhileTheServerHolds() async throws {
        try await withFixture({ $0.storage.writeBufferCapacity = 1 }) { fixture in
            let body = Body.pattern(count: 300_000, seed: 4501)
            let url = fixture.serve("/follow.bin", body) { $0.faults = [.holdAfter(70_000)] }
            let destination = fixture.file("follow.bin")
            let download = await fixture.manager.download(DownloadRequest(url: url, to: .file(destination)))
            #expect(download.partialFileURL == fixture.file("follow.bin.partial"))
            var counted: Int64 = 0
            for await progress in download.progress where progress.bytesReceived == 70_000 {
                counted = progress.bytesReceived
                break
            }
            #expect(counted == 70_000)
            // Far less than the default buffer (256 KiB): on the disk only when written through.
            let onDisk = try Data(contentsOf: download.partialFileURL)
            #expect(onDisk == body.bytes(0..<70_000))
            fixture.server.release("/follow.bin")
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test func aDirectoryDestinationNamesItsPartialFileAfterTheURL() async throws {
        try await withFixture({ $0.scheduling.maximumConcurrentDownloads = 0 }) { fixture in
            let url = fixture.serve("/named.bin", Body.pattern(count: 1_000, seed: 4502))
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let partial = download.partialFileURL
            #expect(partial.deletingLastPathComponent().standardizedFileURL == fixture.directory.standardizedFileURL)
            #expect(partial.lastPathComponent.hasPrefix("named.bin."))
            #expect(partial.pathExtension == "partial")
        }
    }
}
