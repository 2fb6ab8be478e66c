import DownstreamTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `dl` example does what the README says: interrupted with Ctrl-C, it continues where it
/// stopped when run again.
@Suite(.timeLimit(.minutes(2)))
struct DLExampleTests {
    @Test func anInterruptedRunContinuesWhenRunAgain() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 90)
            let url = fixture.serve("/dl/movie.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }
            let executable = try ChildProcess.executable("dl")
            // dl keeps its store in the data directory: the test's own, not the user's.
            let data = fixture.storeDirectory.appendingPathComponent("xdg")
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = data.path
            let store = data.appendingPathComponent("Downstream/dl")

            // First run: interrupt it once it shows the bytes the server sent before holding.
            let first = Process()
            first.executableURL = executable
            first.arguments = [url.absoluteString, fixture.directory.path]
            first.environment = environment
            let firstOutput = Pipe()
            first.standardOutput = firstOutput
            let exited = AsyncStream<Int32>.makeStream()
            first.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
            try first.run()
            let sawProgress = await ChildProcess.waitForOutput(containing: "1.0 MB of 3.0 MB", in: firstOutput)
            #expect(sawProgress)
            kill(first.processIdentifier, SIGINT)
            var statuses = exited.stream.makeAsyncIterator()
            let firstExit = await statuses.next()
            #expect(firstExit == 130)
            let partials = fixture.listing().filter { $0.hasSuffix(".partial") }
            #expect(partials.count == 1)
            // Cancelled with its data kept: one record says so.
            #expect(fixture.listing(store).filter { $0.hasSuffix(".record") }.count == 1)
            let kept = try #require(fileLength(fixture.file(partials.first ?? "?")))
            fixture.server.release("/dl/movie.mp4")

            // Second run: continues from the bytes kept.
            let (status, output) = try await ChildProcess.run(
                executable, [url.absoluteString, fixture.directory.path], environment: environment)
            #expect(status == 0, "\(output)")
            #expect(output.contains("saved \(fixture.file("movie.mp4").path)"))
            try body.expectMatches(fixture.file("movie.mp4"))
            #expect(fixture.listing() == ["movie.mp4"])
            #expect(fixture.listing(store) == [".lock"])
            #expect(fixture.server.requests("/dl/movie.mp4").map(\.rangeStart) == [0, kept])
        }
    }
}
