import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import dl

/// What `dl` prints, without running it: sizes, times, bars, the terminal's layout and redraws,
/// plain and JSON lines, and exit statuses.
@Suite struct DLOutputTests {
    // MARK: - Formatting

    @Test(arguments: [
        (Int64(0), "0 B"), (999, "999 B"), (1000, "1.00 kB"), (1_500, "1.50 kB"), (12_345, "12.3 kB"),
        (999_499, "999 kB"), (999_999, "1.00 MB"), (1_000_000, "1.00 MB"), (3_000_000, "3.00 MB"),
        (123_456_789, "123 MB"), (4_700_000_000, "4.70 GB"), (Int64.max, "9.22 EB"),
    ])
    func sizesHaveThreeDigitsAndAUnit(_ bytes: Int64, _ text: String) {
        #expect(Format.bytes(bytes) == text)
        #expect(Format.bytes(bytes).count <= 7)
    }

    @Test(arguments: [
        (Duration.zero, "0s"), (.milliseconds(200), "1s"), (.seconds(59), "59s"), (.seconds(65), "1m05s"),
        (.seconds(3599), "59m59s"), (.seconds(3720), "1h02m"), (.seconds(273_600), "3d04h"),
        (.seconds(100 * 86_400), ">99d"),
    ])
    func timesShowTheirTwoLargestUnits(_ duration: Duration, _ text: String) {
        #expect(Format.duration(duration) == text)
        #expect(Format.duration(duration).count <= 6)
    }

    @Test func barsPercentagesAndSpeeds() {
        #expect(Format.bar(0, width: 12) == "[          ]")
        #expect(Format.bar(0.5, width: 12) == "[====>     ]")
        #expect(Format.bar(1, width: 12) == "[==========]")
        #expect(Format.bar(nil, width: 4) == "[  ]")
        #expect(Format.percent(0.999) == "99%")
        #expect(Format.percent(1) == "100%")
        #expect(Format.speed(1_200_000) == "1.20 MB/s")
        #expect(Format.speed(0) == "0 B/s")
    }

    @Test func namesAreCutInTheMiddleToTheirColumns() {
        #expect(Columns.width("日本語.txt") == 10)
        #expect(Columns.truncate("a-very-long-file-name.iso", to: 12) == "a-very-l…iso")
        #expect(Columns.width(Columns.truncate("日本語のとても長い名前.txt", to: 9)) <= 9)
        #expect(Columns.truncate("short", to: 12) == "short")
        #expect(Columns.pad("7%", to: 4, leading: true) == "  7%")
    }

    // MARK: - The live block

    static func job(
        _ name: String, _ number: Int, received: Int64, of total: Int64?, speed: Double = 0,
        phase: JobStatus.Phase = .running
    ) -> JobStatus {
        var job = JobStatus(
            job: Job(
                url: URL(string: "http://example.com/\(name)")!, file: URL(fileURLWithPath: "/tmp/\(name)")),
            number: number)
        job.phase = phase
        let remaining = speed > 0 && total != nil ? Duration.seconds(Double(total! - received) / speed) : nil
        job.update(
            DownloadProgress(
                bytesReceived: received, expectedBytes: total, bytesPerSecond: speed, estimatedTimeRemaining: remaining)
        )
        return job
    }

    /// The failure of a download whose server answered `code`, worded as Foundation words it.
    static func status(_ code: Int) -> DownloadError {
        DownloadError(.httpStatus, reason: HTTPURLResponse.localizedString(forStatusCode: code), statusCode: code)
    }

    static let jobs = [
        job("movie.mp4", 1, received: 1_350_000, of: 3_000_000, speed: 1_200_000),
        job(
            "a-very-long-name-of-a-file-that-goes-on-and-on.tar.gz", 2, received: 320_000, of: 2_000_000, speed: 800_000
        ),
        job(
            "done.txt", 3, received: 700_000, of: 700_000,
            phase: .saved(URL(fileURLWithPath: "/tmp/done.txt"), kept: nil)),
        job("later.bin", 4, received: 0, of: nil, phase: .queued),
    ]

    @Test(arguments: [200, 120, 100, 80, 60, 44, 30, 20, 8])
    func everyLineFitsTheTerminalAndKeepsThePercent(_ width: Int) {
        let lines = TerminalRenderer.lines(Self.jobs, at: .zero, width: width, height: 24)
        #expect(lines.count == 3, "two running downloads and the total; not the done nor the queued one")
        for line in lines {
            #expect(Columns.width(line) <= width - 1, "\(line)")
        }
        if width >= 30 {
            #expect(lines[0].contains("45%"))
            #expect(lines[1].contains("16%"))
            #expect(lines[2].hasPrefix("total 1/4"))
        }
    }

    @Test func aWideTerminalShowsEveryColumnAligned() {
        let lines = TerminalRenderer.lines(Self.jobs, at: .zero, width: 120, height: 24)
        #expect(lines[0].hasPrefix("movie.mp4 "))
        #expect(lines[0].contains("]   45%  1.35 MB/3.00 MB  1.20 MB/s  eta 2s"), "\(lines[0])")
        #expect(lines[1].contains("…"))
        #expect(lines[1].contains("]   16%   320 kB/2.00 MB   800 kB/s  eta 3s"), "\(lines[1])")
        // The bars start and end in the same columns.
        let bars = lines.map {
            ($0.firstIndex(of: "[")?.utf16Offset(in: $0), $0.firstIndex(of: "]")?.utf16Offset(in: $0))
        }
        #expect(Set(bars.map(\.0)).count == 1)
        #expect(Set(bars.map(\.1)).count == 1)
        // Unknown lengths make the total line say only what is known.
        #expect(!lines[2].contains("%"), "\(lines[2])")
    }

    @Test func narrowTerminalsDropTheTimeThenTheSpeedThenTheSize() {
        #expect(TerminalRenderer.layout(longestName: 9, width: 100).columns == [.percent, .size, .speed, .remaining])
        #expect(TerminalRenderer.layout(longestName: 9, width: 60).columns == [.percent, .size, .speed])
        #expect(TerminalRenderer.layout(longestName: 9, width: 40).columns == [.percent])
        #expect(TerminalRenderer.layout(longestName: 9, width: 40).barWidth >= TerminalRenderer.minimumBarWidth)
        #expect(
            TerminalRenderer.layout(longestName: 9, width: 20) == .init(columns: [.percent], nameWidth: 9, barWidth: 0))
    }

    @Test func waitingDownloadsSayWhatTheyWaitForAndManyAreCounted() {
        var jobs = (1...30).map { Self.job("file\($0)", $0, received: 10, of: 100) }
        jobs[0].phase = .retrying(until: .seconds(12))
        jobs[1].phase = .waitingForNetwork
        let lines = TerminalRenderer.lines(jobs, at: .seconds(10), width: 80, height: 10)
        // At most a line less than the terminal's height: rows, the count of those left out, the total.
        #expect(lines.count == 9)
        #expect(lines[0] == "file1       retrying in 2s")
        #expect(lines[1] == "file2       waiting for the network")
        #expect(lines[7] == "…           and 23 more")
        #expect(lines[8].hasPrefix("total 0/30"))
    }

    @Test func redrawsReplaceTheBlockAndKeepTheLinesAbove() {
        var block = LiveBlock()
        var screen = ScreenModel()
        screen.feed("$ dl …\n")
        screen.feed(block.redraw(block: ["a 10%", "b 20%", "total"]))
        #expect(screen.text == ["$ dl …", "a 10%", "b 20%", "total"])
        screen.feed(block.redraw(block: ["a 50%", "b 60%", "total"]))
        #expect(screen.text == ["$ dl …", "a 50%", "b 60%", "total"])
        // A line that stays, wider than the block's lines, and a block that shrinks.
        let long = "saved /a/path/much/longer/than/the/block/a"
        screen.feed(block.redraw(above: [long], block: ["b 70%"]))
        #expect(screen.text == ["$ dl …", long, "b 70%"])
        screen.feed(block.redraw(above: ["saved b"], block: []))
        #expect(screen.text == ["$ dl …", long, "saved b"])
        #expect(block.height == 0)
    }

    // MARK: - Events, plain and JSON lines

    @Test func eventsBecomeOccurrencesOnce() {
        var job = Self.job("a.bin", 1, received: 0, of: 100, phase: .queued)
        #expect(job.apply(.paused, at: .zero).isEmpty)
        #expect(job.apply(.queued, at: .zero).isEmpty)
        #expect(job.apply(.running, at: .zero) == [.started])
        #expect(job.apply(.resumed(at: 40), at: .zero) == [.resumed(at: 40)])
        let reset = DownloadError(.network, reason: "connection lost", urlErrorCode: .networkConnectionLost)
        #expect(
            job.apply(.willRetry(in: .seconds(2), after: reset), at: .seconds(1))
                == [.retrying(in: .seconds(2), after: reset)])
        #expect(job.phase == .retrying(until: .seconds(3)))
        #expect(job.apply(.running, at: .seconds(3)).isEmpty)
        #expect(job.apply(.restarted, at: .seconds(3)) == [.restarted])
        let file = URL(fileURLWithPath: "/tmp/a.bin")
        #expect(job.apply(.completed(file), at: .seconds(4)) == [.saved(file, kept: nil)])
        #expect(job.progress?.bytesReceived == 100)
        #expect(job.apply(.cancelled, at: .seconds(5)).isEmpty)
    }

    /// A switch to a mirror is told once, with why the URL left failed: the library tells the
    /// switch, then a retry at once with the old URL's error, which is not a retry line of its own.
    @Test func aSwitchIsToldWithTheFailureOfTheURLLeft() {
        var job = Self.job("c.bin", 1, received: 0, of: 100, phase: .running)
        let mirror = URL(string: "http://mirror.example/c.bin")!
        let notFound = DownloadError(.httpStatus, reason: "Not Found", statusCode: 404)
        #expect(job.apply(.switchedURL(to: mirror), at: .seconds(1)).isEmpty)
        let told = job.apply(.willRetry(in: .zero, after: notFound), at: .seconds(1))
        #expect(told == [.switchedURL(mirror, from: job.job.url, after: notFound)])
        #expect(
            Describe.line(told[0], of: job)
                == "c.bin: switched to \(mirror.absoluteString) (\(job.job.url.absoluteString): the server answered HTTP 404 (Not Found))"
        )
        // A later retry, from the mirror, is one.
        let unavailable = DownloadError(.httpStatus, reason: "Service Unavailable", statusCode: 503)
        #expect(
            job.apply(.willRetry(in: .seconds(1), after: unavailable), at: .seconds(2))
                == [.retrying(in: .seconds(1), after: unavailable)])
        // A URL changed by request (no failure) is told when the next event comes.
        var other = Self.job("d.bin", 2, received: 0, of: 100, phase: .queued)
        #expect(other.apply(.switchedURL(to: mirror), at: .zero).isEmpty)
        #expect(other.apply(.running, at: .zero) == [.switchedURL(mirror, from: other.job.url, after: nil), .started])
    }

    /// A saved file's line says how much, how long and how fast, as wget's does; the time and
    /// speed are this run's, and a file continued from bytes an earlier run kept says how many
    /// bytes this run received.
    @Test func aSavedLineSaysHowMuchHowLongAndHowFast() {
        let file = URL(fileURLWithPath: "/tmp/movie.mp4")
        var job = Self.job("movie.mp4", 1, received: 3_000_000, of: 3_000_000, phase: .saved(file, kept: nil))
        #expect(Describe.line(.saved(file, kept: nil), of: job) == "saved /tmp/movie.mp4 (3.00 MB)")
        job.startedAt = .seconds(2)
        job.bytesAtStart = 1_000_000
        job.savedAt = .milliseconds(3_500)
        #expect(
            Describe.line(.saved(file, kept: nil), of: job)
                == "saved /tmp/movie.mp4 (3.00 MB; this run 2.00 MB in 1.5s, 1.33 MB/s)")
        job.savedAt = .seconds(92)
        #expect(
            Describe.line(.saved(file, kept: nil), of: job)
                == "saved /tmp/movie.mp4 (3.00 MB; this run 2.00 MB in 1m30s, 22.2 kB/s)")
    }

    @Test func plainLinesSayWhatHappenedAndProgressComesEveryPeriod() {
        var reporter = PlainReporter(period: .seconds(5))
        let job = Self.job("movie.mp4", 1, received: 1_000_000, of: 3_000_000)
        #expect(
            reporter.report(.started, of: job, among: [job], at: .zero).output
                == "started movie.mp4 from http://example.com/movie.mp4\n")
        #expect(reporter.refresh([job], at: .seconds(4)).output.isEmpty)
        #expect(reporter.refresh([job], at: .seconds(5)).output == "movie.mp4  33%  1.00 MB/3.00 MB  0 B/s\n")
        #expect(reporter.refresh([job], at: .seconds(9)).output.isEmpty)
        let failed = reporter.report(.failed(Self.status(404)), of: job, among: [job], at: .seconds(9))
        #expect(failed.output.isEmpty, "a failure goes to standard error")
        let failure = failed.errors
        // Foundation words the status (`Not Found` on Linux, `not found` on Apple platforms).
        // The URL was refused with bytes kept: a new URL for the same file continues from them.
        #expect(
            failure.lowercased()
                == "failed movie.mp4: the server answered http 404 (not found); 1.00 mb kept: "
                + "a new url for the same file continues from them\n")

        var everyChange = PlainReporter(period: .zero)
        #expect(!everyChange.refresh([job], at: .zero).output.isEmpty)
        #expect(everyChange.refresh([job], at: .zero).output.isEmpty, "nothing changed")
    }

    @Test func jsonLinesAreObjectsWithTheirEvent() throws {
        var reporter = JSONReporter(period: .zero)
        let job = Self.job("a \"quoted\"\nname", 2, received: 5, of: 10)
        var text = reporter.report(.failed(Self.status(401)), of: job, among: [job], at: .zero).output
        text += reporter.refresh([job], at: .zero).output
        text += reporter.finish([job], summary: Summary([job], interrupted: true), interrupted: true).output
        let objects = try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["event"] as? String } == ["failed", "progress", "interrupted", "summary"])
        #expect(objects[0]["status"] as? Int == 401)
        #expect(objects[0]["exitCode"] as? Int == 6)
        #expect(objects[0]["kind"] as? String == "HTTP status")
        #expect(objects[1]["bytes"] as? Int == 5)
        #expect(objects[1]["total"] as? Int == 10)
        #expect(objects[3]["exitCode"] as? Int == 130)
        #expect(JSONLine.quoted("a\"b\\c\n\u{1}") == #""a\"b\\c\n\u0001""#)
    }

    // MARK: - Exit statuses

    @Test(arguments: [
        (Self.status(404), 8), (Self.status(503), 8), (Self.status(401), 6), (Self.status(407), 6),
        (DownloadError(.network, reason: "timed out", urlErrorCode: .timedOut), 4),
        (DownloadError(.fileSystem, reason: "EACCES", path: "/x"), 3),
        (DownloadError(.destinationExists, reason: "file exists", path: "/x"), 3),
        (DownloadError(.insufficientSpace, reason: "full", path: "/x"), 3),
        (DownloadError(.unexpectedResponse, reason: "bad range"), 7),
        (DownloadError(.serverFileChanged, reason: "etag"), 7), (DownloadError(.redirectRefused, reason: "loop"), 7),
        (DownloadError(.validationFailed, reason: "type"), 9),
        (DownloadError(.integrityCheckFailed, reason: "expected md5 0…, got 1"), 9),
        (DownloadError(.invalidRequest, reason: "ftp"), 1), (DownloadError(.managerUnavailable, reason: "in use"), 1),
        (DownloadError(.cancelled, reason: "by request"), 1),
    ])
    func eachKindOfFailureHasItsStatus(_ error: DownloadError, _ status: Int) {
        #expect(ExitCode.failure(error).rawValue == Int32(status))
    }

    @Test func theLowestStatusButOneWinsAsInWget() {
        #expect(ExitCode.combined([]) == .success)
        #expect(ExitCode.combined([.success, .success]) == .success)
        #expect(ExitCode.combined([.success, .generic]) == .generic)
        #expect(ExitCode.combined([.generic, .httpStatus, .network]) == .network)
        #expect(ExitCode.combined([.integrity, .httpStatus, .generic, .success]) == .httpStatus)
    }

    @Test func aSummaryCountsAndInterruptionWins() {
        let saved = Self.job("a", 1, received: 1, of: 1, phase: .saved(URL(fileURLWithPath: "/a"), kept: nil))
        let missing = Self.job("b", 2, received: 0, of: nil, phase: .failed(Self.status(404)))
        let refused = Self.job("c", 3, received: 0, of: nil, phase: .failed(Self.status(401)))
        let running = Self.job("d", 4, received: 0, of: nil)
        let summary = Summary([saved, missing, refused], interrupted: false)
        #expect((summary.saved, summary.failed, summary.exitCode) == (1, 2, .authentication))
        #expect(Describe.summary(summary) == "1 saved, 2 failed (exit status 6: \(ExitCode.authentication.meaning))")
        #expect(Summary([saved, running], interrupted: true).exitCode == .interrupted)
        #expect(Summary([saved, running], interrupted: true).paused == 1)
    }
}
