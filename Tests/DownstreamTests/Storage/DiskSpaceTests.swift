@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A disk too small for the file, or one that fills up on the way: a typed error, the bytes
/// kept, and the download resumable once there is room. On a real, small file system: a child
/// process in a mount namespace of its own with a 4 MiB tmpfs (`unshare -rm`).
@Suite(.timeLimit(.minutes(2)))
struct DiskSpaceTests {
    /// Whether this machine lets an unprivileged process mount a tmpfs of its own.
    static let canMountPrivateFileSystems: Bool = {
        let child = try? SpawnedProcess(URL(fileURLWithPath: "/usr/bin/unshare"), ["-rm", "true"])
        return child?.waitForEnding() == .exited(0)
    }()

    @Test(
        .enabled(if: canMountPrivateFileSystems, "needs Linux's unprivileged user and mount namespaces (unshare -rm)"))
    func aFullDiskFailsWithATypedErrorKeepsTheBytesAndResumesOnceThereIsRoom() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 740)
            // Slow enough that the child fills the disk while a third of the file has arrived.
            let url = fixture.serve("/large.bin", body) { $0.bytesPerSecond = 1_500_000 }
            let mountPoint = fixture.file("small-disk")
            try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
            let client = try ChildProcess.executable("DownstreamTestClient")
            let script =
                "mount -t tmpfs -o size=4m tmpfs \"$0\" && exec \"$1\" disk-full --store \"$2\" --directory \"$0\" --sha256 \"$3\" \"$4\""
            let (status, output) = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/unshare"),
                [
                    "-rm", "sh", "-c", script, mountPoint.path, client.path, fixture.storeDirectory.path,
                    ExpectedDigestTests.digest(.sha256, of: body).hexValue, url.absoluteString,
                ])
            let lines = output.split(separator: "\n").map(String.init)
            #expect(status == 0, "\(output)")
            // Known to be too large from the response's length: refused before any byte.
            #expect(lines.first == "preflight insufficient space partial=-1")
            // The disk filled up on the way: the bytes written are kept.
            let midway = try #require(lines.first { $0.hasPrefix("midway ") })
            #expect(midway.hasPrefix("midway insufficient space resumable=true partial="))
            let kept = try #require(Int64(midway.split(separator: "=").last ?? ""))
            #expect(kept > 0)
            #expect(kept < body.count)
            #expect(lines.last == "resumed ok")
            // The last request continued from the bytes kept.
            #expect(fixture.server.requests("/large.bin").last?.rangeStart == fixture.rangeStart(continuing: kept))
        }
    }

    @Test(
        .enabled(if: canMountPrivateFileSystems, "needs Linux's unprivileged user and mount namespaces (unshare -rm)"))
    func aBodyOfUnknownLengthLeavesTheDiskItsReserve() async throws {
        try await withFixture(startsManager: false) { fixture in
            // 1 GiB decoded, to a disk of 32 MiB.
            let url = fixture.serve("/bomb.bin", .gzippedZeros(count: 1 << 30)) {
                $0.extraHeaders["Content-Encoding"] = "gzip"
            }
            let mountPoint = fixture.file("small-disk")
            try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
            let client = try ChildProcess.executable("DownstreamTestClient")
            let script =
                "mount -t tmpfs -o size=32m tmpfs \"$0\" && \"$1\" fetch \"$2\" \"$0/bomb.bin\" --compressed yes && df -B1 --output=avail \"$0\" | tail -1"
            let (status, output) = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/unshare"),
                ["-rm", "sh", "-c", script, mountPoint.path, client.path, url.absoluteString])
            #expect(status == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("failed\tkind=insufficient space\t") == true, "\(output)")
            // Stopped before less than 5 % (1.6 MiB) was left, and the bytes are kept.
            let free = try #require(Int64(lines.last?.trimmingCharacters(in: .whitespaces) ?? ""), "\(output)")
            #expect(free >= SpaceWatch.reserve(ofSize: 32 << 20), "\(output)")
            #expect(free < 8 << 20, "\(output)")
        }
    }

    @Test func theReserveIsATwentiethOfTheDiskAtMost64MiB() {
        #expect(SpaceWatch.reserve(ofSize: 32 << 20) == (32 << 20) / 20)
        #expect(SpaceWatch.reserve(ofSize: 1 << 40) == 64 << 20)
    }

    /// A pseudo file system (`/proc`) reports no blocks at all: no room to tell of, which is not
    /// "no room" (a download there fails for its own reason, naming the path).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self")))
    func aFileSystemWithoutBlocksSaysNothingAboutRoom() throws {
        #expect(POSIXFile.availableBytes(atPath: "/proc") == nil)
        #expect(POSIXFile.availableBytes(atPath: NSTemporaryDirectory()) != nil)
    }
}
