@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

@testable import dl

/// `dl` on a terminal (a pseudo-terminal of a given size), its output read through a screen
/// model: a live bar per download and a total line, redrawn in place within the width, then the
/// lines that stay.
@Suite(.timeLimit(.minutes(2)))
struct DLTerminalTests {
    @Test(arguments: [(100, 30), (50, 12)])
    func liveBarsForEachDownloadAndATotalThenSavedLines(width: Int, height: Int) async throws {
        try await withFixture(startsManager: false) { fixture in
            let first = Body.pattern(count: 3_000_000, seed: 30)
            let second = Body.pattern(count: 2_000_000, seed: 31)
            let a = fixture.serve("/t/a.bin", first) { $0.faults = [.holdAfter(1_000_000)] }
            let b = fixture.serve("/t/b.bin", second) { $0.faults = [.holdAfter(1_000_000)] }
            let child = try DLChild(
                [a.absoluteString, b.absoluteString], in: fixture, output: .terminal(width: width, height: height))
            defer { child.stop() }

            // While the server holds both: a bar each at the bytes sent, and the total.
            let held = await child.output.wait { text in
                let lines = Self.screen(text)
                return lines.contains { $0.hasPrefix("a.bin ") && $0.contains("33%") }
                    && lines.contains { $0.hasPrefix("b.bin ") && $0.contains("50%") }
                    && lines.contains { $0.hasPrefix("total 0/2 ") && $0.contains("40%") }
            }
            let live = Self.screen(try #require(held))
            #expect(live.count == 3, "\(live)")
            for line in live {
                #expect(line.count <= width - 1, "\(line)")
                #expect(line.contains("[") && line.contains("]"), "a bar: \(line)")
            }
            if width >= 60 {
                #expect(live.contains { $0.hasPrefix("a.bin ") && $0.contains("1.00 MB/3.00 MB") })
                #expect(live.contains { $0.hasPrefix("total 0/2 ") && $0.contains("2.00 MB/5.00 MB") })
            }

            fixture.server.release("/t/a.bin")
            fixture.server.release("/t/b.bin")
            #expect(await child.exitStatus() == 0)
            let output = await child.output.text()
            let final = Self.screen(output)
            #expect(final.count == 3, "no live block left: \(final)")
            for name in ["a.bin", "b.bin"] {
                #expect(final.contains { $0.hasPrefix("saved \(fixture.file(name).path) (") }, "\(final)")
            }
            #expect(final.last == "2 saved")
            #expect(output.hasSuffix("\u{1B}[?25h"), "the cursor is shown again")
            try first.expectMatches(fixture.file("a.bin"))
            try second.expectMatches(fixture.file("b.bin"))
        }
    }

    /// Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) alike: the line says paused, the
    /// cursor is shown again, the status is 130, and the bytes are kept for the same command.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func ctrlCOnATerminalLeavesAPausedLineAndNoBlock(_ signal: Int32) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/t/c.bin", Body.pattern(count: 2_000_000, seed: 32)) {
                $0.faults = [.holdAfter(500_000)]
            }
            let child = try DLChild([url.absoluteString], in: fixture, output: .terminal(width: 80, height: 24))
            defer { child.stop() }
            #expect(
                await child.output.wait { Self.screen($0).contains { $0.hasPrefix("c.bin ") && $0.contains("25%") } }
                    != nil)
            child.interrupt(signal)
            #expect(await child.exitStatus() == 130)
            let text = await child.output.text()
            // The cursor, hidden while the bars were drawn, is shown again after the last hide.
            let lastHide = text.range(of: LiveBlock.hideCursor, options: .backwards)?.lowerBound
            let lastShow = text.range(of: LiveBlock.showCursor, options: .backwards)?.lowerBound
            #expect(lastHide != nil)
            #expect(lastShow.map { show in lastHide.map { $0 < show } ?? true } == true, "the cursor is shown again")
            #expect(fileLength(fixture.file("c.bin.partial")) ?? 0 > 0)
            let final = Self.screen(text)
            #expect(final.count == 2, "\(final)")
            #expect(final.first?.hasPrefix("paused c.bin at 25%") == true, "\(final)")
            #expect(final.last == "interrupted: run the same command again to continue")
            fixture.server.release("/t/c.bin")
        }
    }

    /// A retry on a terminal says why, above the bars, not only "retrying in 2s".
    @Test func aRetryOnATerminalSaysWhy() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/t/r.bin", Body.pattern(count: 100_000, seed: 34)) { $0.faults = [.status(503)] }
            let child = try DLChild(
                ["--retry-wait", "0.1", url.absoluteString], in: fixture, output: .terminal(width: 100, height: 24))
            defer { child.stop() }
            #expect(await child.exitStatus() == 0)
            let final = Self.screen(await child.output.text())
            #expect(
                final.contains { $0.hasPrefix("retrying r.bin in ") && $0.contains("503") }, "\(final)")
            #expect(final.last?.hasPrefix("saved ") == true, "\(final)")
        }
    }

    @Test func aResizedTerminalGetsLinesOfItsNewWidth() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/t/wide-name-of-a-file.bin", Body.pattern(count: 2_000_000, seed: 33)) {
                $0.faults = [.holdAfter(1_000_000)]
            }
            let child = try DLChild([url.absoluteString], in: fixture, output: .terminal(width: 120, height: 24))
            defer { child.stop() }
            let wide = await child.output.wait { text in
                Self.screen(text).contains { $0.hasPrefix("wide-name-of-a-file.bin ") && $0.contains("50%") }
            }
            #expect(try Self.screen(#require(wide)).contains { $0.count > 60 && $0.contains("1.00 MB/2.00 MB") })
            child.resizeTerminal(width: 40, height: 24)
            let narrow = await child.output.wait { text in
                let lines = Self.screen(text)
                return lines.count == 1 && lines[0].count <= 39 && lines[0].contains("50%")
            }
            #expect(narrow != nil)
            fixture.server.release("/t/wide-name-of-a-file.bin")
            #expect(await child.exitStatus() == 0)
        }
    }

    /// The screen's lines after `text`.
    static func screen(_ text: String) -> [String] {
        var screen = ScreenModel()
        screen.feed(text)
        return screen.text
    }
}
