@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// The end of a file and of a run, as `dl` prints them: after a resume, the saved line says what
/// this run received beside the whole file's size (plain, `-nv`, `--json`, terminal); a terminal
/// tells a resume above the bars, as a pipe does; after Ctrl-C, how to continue is said once.
@Suite(.timeLimit(.minutes(2)))
struct DLEndOfRunTests {
    enum Output: String, CaseIterable {
        case plain, brief, json
    }

    @Test(arguments: Output.allCases)
    func aResumedFileSaysWhatThisRunReceived(_ output: Output) async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 4502)
            let url = fixture.serve("/r/movie.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }
            let kept = try await DLInterruptTests.interruptAtAThird(url, named: "movie.mp4", in: fixture)
            fixture.server.release("/r/movie.mp4")
            let flags: [String] =
                switch output {
                case .plain: []
                case .brief: ["-nv"]
                case .json: ["--json"]
                }

            let run = try await DLChild.run(flags + [url.absoluteString], in: fixture)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            try body.expectMatches(fixture.file("movie.mp4"))
            let thisRun = 3_000_000 - kept
            switch output {
            case .plain, .brief:
                #expect(
                    run.output.contains(
                        "saved \(fixture.file("movie.mp4").path) (3.00 MB; this run \(Format.bytes(thisRun)) in "),
                    "\(run.output)")
            case .json:
                let line = try #require(run.output.split(separator: "\n").first { $0.contains("\"completed\"") })
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["bytes"] as? Int == 3_000_000, "\(line)")
                #expect(object["bytesThisRun"] as? Int == Int(thisRun), "\(line)")
                let seconds = try #require(object["seconds"] as? Double, "\(line)")
                let speed = try #require(object["speed"] as? Int, "\(line)")
                #expect(seconds > 0)
                // This run's bytes over this run's time, which the object rounds to the millisecond.
                let fastest = Double(thisRun) / max(seconds - 0.0005, 1e-9)
                let slowest = Double(thisRun) / (seconds + 0.0005)
                #expect(Double(speed) >= slowest - 1 && Double(speed) <= fastest + 1, "\(line)")
            }
        }
    }

    /// A resume on a terminal leaves a line above the bar (`resumed NAME from 1.00 MB kept`),
    /// which stays on the screen; the bar block goes on below it, and the saved line says what
    /// this run received.
    @Test func onATerminalAResumeIsToldAboveTheBar() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 3_000_000, seed: 4503)
            let url = fixture.serve("/r/film.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }
            let kept = try await DLInterruptTests.interruptAtAThird(url, named: "film.mp4", in: fixture)
            fixture.server.release("/r/film.mp4")
            // The rerun's response holds again after a million bytes of its own.
            _ = fixture.serve("/r/film.mp4", body) { $0.faults = [.holdAfter(1_000_000)] }

            let child = try DLChild([url.absoluteString], in: fixture, output: .terminal(width: 100, height: 24))
            defer { child.stop() }
            let notice = "resumed film.mp4 from \(Format.bytes(kept)) kept (byte \(kept))"
            let held = await child.output.wait { text in
                let screen = DLTerminalTests.screen(text)
                return screen.first == notice && screen.count == 2 && screen[1].hasPrefix("film.mp4 ")
                    && screen[1].contains("MB/3.00 MB")
            }
            let live = DLTerminalTests.screen(try #require(held))
            #expect(live[1].contains("["), "a bar below the notice: \(live)")
            fixture.server.release("/r/film.mp4")
            #expect(await child.exitStatus() == 0)
            let final = DLTerminalTests.screen(await child.output.text())
            #expect(final.count == 2, "\(final)")
            #expect(final.first == notice)
            #expect(
                final.last?.hasPrefix(
                    "saved \(fixture.file("film.mp4").path) (3.00 MB; this run \(Format.bytes(3_000_000 - kept)) in ")
                    == true, "\(final)")
            try body.expectMatches(fixture.file("film.mp4"))
        }
    }

    /// Two files held by the server, then Ctrl-C.
    static func interruptTwo(in fixture: Fixture, output: DLChild.Output) async throws -> (DLChild, [URL]) {
        let urls = [
            fixture.serve("/i/a.bin", Body.pattern(count: 3_000_000, seed: 4504)) {
                $0.faults = [.holdAfter(1_000_000)]
            },
            fixture.serve("/i/b.bin", Body.pattern(count: 2_000_000, seed: 4505)) {
                $0.faults = [.holdAfter(1_000_000)]
            },
        ]
        let child = try DLChild(
            ["--progress-interval", "0"] + urls.map(\.absoluteString), in: fixture, output: output)
        return (child, urls)
    }

    @Test func ctrlCInAPipeSaysHowToContinueOnce() async throws {
        try await withFixture(startsManager: false) { fixture in
            let (child, _) = try await Self.interruptTwo(in: fixture, output: .pipe)
            defer { child.stop() }
            #expect(await child.output.wait { $0.contains("a.bin  33%") && $0.contains("b.bin  50%") } != nil)
            child.interrupt()
            #expect(await child.exitStatus() == 130)
            let output = await child.output.text()
            let end = try #require(output.range(of: "paused a.bin"), "\(output)")
            #expect(
                output[end.lowerBound...]
                    == "paused a.bin at 33%  1.00 MB/3.00 MB\npaused b.bin at 50%  1.00 MB/2.00 MB\n"
                    + "interrupted (0 saved, 2 paused): run the same command again to continue\n", "\(output)")
            #expect(output.components(separatedBy: "run the same command").count == 2, "once: \(output)")
            #expect(await child.errors?.text() == "")
            fixture.server.release("/i/a.bin")
            fixture.server.release("/i/b.bin")
        }
    }

    @Test func ctrlCOnATerminalSaysHowToContinueOnce() async throws {
        try await withFixture(startsManager: false) { fixture in
            let (child, _) = try await Self.interruptTwo(in: fixture, output: .terminal(width: 100, height: 24))
            defer { child.stop() }
            let held = await child.output.wait { text in
                DLTerminalTests.screen(text).contains { $0.hasPrefix("total 0/2 ") && $0.contains("40%") }
            }
            #expect(held != nil)
            child.interrupt()
            #expect(await child.exitStatus() == 130)
            #expect(
                DLTerminalTests.screen(await child.output.text()) == [
                    "paused a.bin at 33%  1.00 MB/3.00 MB", "paused b.bin at 50%  1.00 MB/2.00 MB",
                    "interrupted (0 saved, 2 paused): run the same command again to continue",
                ])
            fixture.server.release("/i/a.bin")
            fixture.server.release("/i/b.bin")
        }
    }
}
