import DownstreamTesting
import Foundation
import Testing

/// Linux URLSession has no backpressure of its own: with a slow disk, hundreds of megabytes of
/// callbacks pile up in its delegate queue. Measured from the outside, on a child process.
@Suite(
    .timeLimit(.minutes(5)),
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads the peak from Linux's /proc"))
struct BoundedMemoryTests {
    static let limitKiB = 64 * 1024

    @Test func aGigabyteDownloadToASlowDiskStaysUnder64MiB() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: 1 << 30, seed: 99)
        var route = Route(body: body)
        route.etag = "\"big\""
        server.setRoute("/big.bin", route)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin")

        // The disk takes 100 MB/s, a quarter of what loopback delivers.
        let (status, output) = try await ChildProcess.run(
            try ChildProcess.executable("DownstreamTestClient"),
            ["single", server.url("/big.bin").absoluteString, destination.path, "--disk-bytes-per-second", "100000000"])

        #expect(status == 0, "\(output)")
        let peak = try #require(Self.value(of: "peak-kib", in: output))
        #expect(peak > 0)
        #expect(peak < Self.limitKiB, "the client peaked at \(peak / 1024) MiB")
        #expect(Self.value(of: "bytes", in: output) == Int(body.count))
        #expect(try body.firstMismatch(inFileAt: destination) == nil)
    }

    static func value(of key: String, in output: String) -> Int? {
        for field in output.split(whereSeparator: \.isWhitespace) where field.hasPrefix("\(key)=") {
            return Int(field.dropFirst(key.count + 1))
        }
        return nil
    }
}
