import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// `--progress=dot` (wget's): a dot per KiB (or per the style's size), in groups, a line per 50
/// dots ending with the part of the file up to there and the speed; on a pipe as on a terminal.
@Suite(.timeLimit(.minutes(2)))
struct DLDotProgressTests {
    @Test func dotLinesOnAPipe() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 200_000, seed: 48)
            let url = fixture.serve("/d/dots.bin", body)
            let (status, output, errors) = try await DLChild.run(["--progress=dot", url.absoluteString], in: fixture)
            #expect(status == 0, "\(output)\(errors)")
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let group = String(repeating: ".", count: 10)
            let full = Array(repeating: group, count: 5).joined(separator: " ")
            #expect(lines.count == 7, "\(output)")
            guard lines.count == 7 else { return }
            #expect(lines[0] == "started dots.bin from \(url.absoluteString)")
            for (line, (offset, percent)) in zip(lines[1...3], [("0K", "25%"), ("50K", "51%"), ("100K", "76%")]) {
                // The speed, when the dots came while the download ran.
                let start = Columns.pad(offset, to: 8, leading: true) + " " + full + "  " + percent.padding(4)
                #expect(line == start || (line.hasPrefix(start + "  ") && line.hasSuffix("B/s")), "\(line)")
            }
            // 45 KiB and some more: 45 dots, blanks to the column, and all of it.
            let last = Array(repeating: group, count: 4).joined(separator: " ") + " ....."
            #expect(lines[4] == "    150K " + last + String(repeating: " ", count: 5) + "  100%", "\(lines[4])")
            #expect(lines[5].hasPrefix("saved \(fixture.file("dots.bin").path) (200 kB"), "\(lines[5])")
            try body.expectMatches(fixture.file("dots.bin"))
        }
    }

    @Test func dotLinesOnATerminalToo() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 120_000, seed: 49)
            let url = fixture.serve("/d/tty.bin", body)
            let child = try DLChild(
                ["--progress=dot", url.absoluteString], in: fixture, output: .terminal(width: 100, height: 30))
            defer { child.stop() }
            #expect(await child.exitStatus() == 0)
            let screen = DLTerminalTests.screen(await child.output.text())
            let group = String(repeating: ".", count: 10)
            // No live bar: the lines stay, as on a pipe.
            #expect(screen.first == "started tty.bin from \(url.absoluteString)", "\(screen)")
            #expect(
                screen.contains { $0.hasPrefix("      0K " + Array(repeating: group, count: 5).joined(separator: " ")) }
            )
            #expect(screen.contains { $0.hasPrefix("    100K " + group + " ") && $0.hasSuffix("100%") }, "\(screen)")
            #expect(!screen.contains { $0.contains("[") }, "\(screen)")
            try body.expectMatches(fixture.file("tty.bin"))
        }
    }

    @Test func anInvalidStyleIsAUsageErrorNamingTheValidOnes() async throws {
        try await withFixture(startsManager: false) { fixture in
            let (status, _, errors) = try await DLChild.run(
                ["--progress=dots", "http://127.0.0.1:9/x"], in: fixture)
            #expect(status == 2)
            #expect(
                errors.contains(
                    "'dots' for '--progress': one of bar, dot, dot:default, dot:binary, dot:mega, dot:giga"),
                "\(errors)")
        }
    }

    @Test func stylesByName() throws {
        #expect(try DotStyle.parse("bar") == nil)
        #expect(try DotStyle.parse("dot") == .standard)
        #expect(try DotStyle.parse("dot:mega") == .mega)
        #expect(try DotStyle.parse("DOT:giga") == .giga)
        #expect(throws: UsageError.self) { try DotStyle.parse("dot:kilo") }
        #expect(throws: UsageError.self) { try DotStyle.parse("bar:x") }
    }

    /// Two files at once: each line says whose it is, and a line cut by another file's news goes
    /// on in a new line, blanks where its first dots were.
    @Test func linesOfSeveralFilesSayWhoseTheyAre() {
        let url = URL(string: "http://127.0.0.1/a.bin")!
        var a = JobStatus(job: Job(url: url, file: URL(fileURLWithPath: "/tmp/a.bin")), number: 1)
        let b = JobStatus(job: Job(url: url, file: URL(fileURLWithPath: "/tmp/b.bin")), number: 2)
        _ = a.apply(.running, at: .zero)
        a.update(DownloadProgress(bytesReceived: 12 << 10, expectedBytes: 100 << 10))
        var reporter = DotReporter(style: .standard)
        #expect(reporter.refresh([a, b], at: .zero).output == "a.bin       0K .......... ..")
        let news = reporter.report(.started, of: b, among: [a, b], at: .zero).output
        #expect(news == "\nstarted b.bin from http://127.0.0.1/a.bin\n")
        a.update(DownloadProgress(bytesReceived: 13 << 10, expectedBytes: 100 << 10))
        // 12 dots and a group's space blank, then the 13th.
        #expect(
            reporter.refresh([a, b], at: .zero).output == "a.bin       0K " + String(repeating: " ", count: 13) + ".")
    }
}

extension DLDotProgressTests {
    /// Progress and events come apart: a fast download's progress may be all of it before its
    /// start is told. Its dots still start at its first byte; a resumed one's at the bytes kept.
    @Test func dotsStartAtTheFirstByteOrAtTheBytesKept() {
        let url = URL(string: "http://127.0.0.1/f.bin")!
        var job = JobStatus(job: Job(url: url, file: URL(fileURLWithPath: "/tmp/f.bin")), number: 1)
        job.update(DownloadProgress(bytesReceived: 60 << 10, expectedBytes: 100 << 10))
        _ = job.apply(.running, at: .zero)
        var reporter = DotReporter(style: .standard)
        let dots = Array(repeating: String(repeating: ".", count: 10), count: 5).joined(separator: " ")
        #expect(reporter.refresh([job], at: .zero).output == "      0K \(dots)   50%\n     50K ..........")

        var resumed = JobStatus(job: Job(url: url, file: URL(fileURLWithPath: "/tmp/f.bin")), number: 1)
        _ = resumed.apply(.running, at: .zero)
        var other = DotReporter(style: .standard)
        _ = other.report(.resumed(at: 55 << 10), of: resumed, among: [resumed], at: .zero)
        resumed.update(DownloadProgress(bytesReceived: 57 << 10, expectedBytes: 100 << 10))
        #expect(other.refresh([resumed], at: .zero).output == "     50K " + String(repeating: " ", count: 5) + "..")
    }
}

extension String {
    /// The text right-aligned in `width` columns.
    fileprivate func padding(_ width: Int) -> String {
        Columns.pad(self, to: width, leading: true)
    }
}
