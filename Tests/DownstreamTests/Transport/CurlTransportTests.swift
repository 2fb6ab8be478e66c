import DownstreamTesting
import Foundation
import Testing

/// The libcurl transport is chosen by default on Linux, and when libcurl cannot be loaded the
/// manager uses URLSession: the download still completes. Each case runs in a child process,
/// since libcurl is loaded once per process.
@Suite(.timeLimit(.minutes(2)), .enabled(if: TransportUnderTest.isLibcurlAvailable, "libcurl is loaded on Linux only"))
struct CurlTransportTests {
    static let cases: [(library: String?, expected: String)] = [
        // The usual library.
        (nil, "libcurl "),
        // Not there at all: what a machine without libcurl would do.
        ("/nonexistent/libcurl.so.4", "URLSession"),
        // A library that is not libcurl: its entry points are missing.
        ("libm.so.6", "URLSession"),
    ]

    @Test(arguments: 0..<cases.count)
    func aDownloadCompletesWithLibcurlOrWithoutIt(_ index: Int) async throws {
        let (library, expected) = Self.cases[index]
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: 300_000, seed: 13)
        server.setRoute("/file.bin", Route(body: body))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")

        var environment = ProcessInfo.processInfo.environment
        environment["DOWNSTREAM_TRANSPORT"] = nil
        environment["DOWNSTREAM_LIBCURL"] = library
        let (status, output) = try await ChildProcess.run(
            try ChildProcess.executable("DownstreamTestClient"),
            ["single", server.url("/file.bin").absoluteString, destination.path], environment: environment)

        #expect(status == 0, "\(output)")
        #expect(output.contains("transport=\(expected)"), "\(output)")
        // A quiet guest: loading and using libcurl leaves the process's SIGPIPE as it was.
        #expect(output.contains("sigpipe=default"), "\(output)")
        // The monitors are told once when libcurl could not be used, and not otherwise.
        let fallbacks = output.split(separator: "\n").filter {
            $0.hasPrefix("fallback to URLSession: libcurl cannot be used")
        }
        #expect(fallbacks.count == (library == nil ? 0 : 1), "\(output)")
        try body.expectMatches(destination)
    }
}
