import Downstream
import Foundation
import Testing

@testable import dl

/// The words at the end of a file and of a run, without running `dl`: a saved line whose time and
/// speed are this run's (after a resume, with what this run received), its JSON fields, and the
/// lines after Ctrl-C, each thing said once.
@Suite struct DLEndingTests {
    /// A job of a 3 MB file that ran from 1 s to 3 s of the run, having `kept` bytes at its start.
    static func savedJob(kept: Int64, restarted: Bool = false) -> JobStatus {
        var job = JobStatus(
            job: Job(url: URL(string: "http://example.com/big.iso")!, file: URL(fileURLWithPath: "/tmp/big.iso")),
            number: 1)
        _ = job.apply(.running, at: .seconds(1))
        if kept > 0 { _ = job.apply(.resumed(at: kept), at: .seconds(1)) }
        if restarted { _ = job.apply(.restarted, at: .seconds(1)) }
        job.update(DownloadProgress(bytesReceived: 3_000_000, expectedBytes: 3_000_000))
        _ = job.apply(.completed(URL(fileURLWithPath: "/tmp/big.iso")), at: .seconds(3))
        return job
    }

    @Test func aSavedLineTellsTheTimeAndSpeedOfTheBytesItReceived() {
        let whole = Self.savedJob(kept: 0)
        #expect(
            Describe.line(.saved(whole.job.file, kept: nil), of: whole)
                == "saved /tmp/big.iso (3.00 MB in 2.0s, 1.50 MB/s)")
        let resumed = Self.savedJob(kept: 1_000_000)
        // 2 MB in 2 s: the speed of this run, beside the size of the whole file.
        #expect(
            Describe.line(.saved(resumed.job.file, kept: nil), of: resumed)
                == "saved /tmp/big.iso (3.00 MB; this run 2.00 MB in 2.0s, 1.00 MB/s)")
        // The bytes kept were thrown away: this run received the whole file.
        let restarted = Self.savedJob(kept: 1_000_000, restarted: true)
        #expect(
            Describe.line(.saved(restarted.job.file, kept: nil), of: restarted)
                == "saved /tmp/big.iso (3.00 MB in 2.0s, 1.50 MB/s)")
    }

    @Test func aCompletedJSONObjectHasTheSizeAndThisRunsBytesTimeAndSpeed() throws {
        var reporter = JSONReporter(period: .zero)
        let job = Self.savedJob(kept: 1_000_000)
        let text = reporter.report(.saved(job.job.file, kept: nil), of: job, among: [job], at: .seconds(3)).output
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "completed")
        #expect(object["bytes"] as? Int == 3_000_000)
        #expect(object["bytesThisRun"] as? Int == 2_000_000)
        #expect(object["seconds"] as? Double == 2)
        #expect(object["speed"] as? Int == 1_000_000)

        // A file kept was not received: no size, time or speed.
        var kept = job
        kept.startedAt = nil
        let keptText = reporter.report(.saved(job.job.file, kept: .exists), of: kept, among: [kept], at: .zero).output
        #expect(
            keptText
                == #"{"event":"completed","id":1,"path":"/tmp/big.iso","kept":true,"reason":"already there, --no-clobber"}"#
                + "\n")
    }

    static func interruptedJobs() -> [JobStatus] {
        let saved = Self.savedJob(kept: 0)
        var paused = JobStatus(
            job: Job(url: URL(string: "http://example.com/b.bin")!, file: URL(fileURLWithPath: "/tmp/b.bin")), number: 2
        )
        _ = paused.pause()
        return [saved, paused]
    }

    @Test func afterCtrlCThePlainOutputSaysHowToContinueOnce() {
        let jobs = Self.interruptedJobs()
        var plain = PlainReporter(period: .zero)
        #expect(
            plain.finish(jobs, summary: Summary(jobs, interrupted: true), interrupted: true).output
                == "interrupted (1 saved, 1 paused): run the same command again to continue\n")
        #expect(
            plain.finish([jobs[1]], summary: Summary([jobs[1]], interrupted: true), interrupted: true).output
                == "interrupted: run the same command again to continue\n")
        // Not interrupted: the counts and the status, as before.
        let ended = [jobs[0], jobs[0]]
        #expect(
            plain.finish(ended, summary: Summary(ended, interrupted: false), interrupted: false).output == "2 saved\n")
        var brief = BriefReporter()
        #expect(
            brief.finish(jobs, summary: Summary(jobs, interrupted: true), interrupted: true).output
                == "interrupted (1 saved, 1 paused): run the same command again to continue\n")
    }

    @Test func afterCtrlCTheTerminalSaysHowToContinueOnce() {
        let jobs = Self.interruptedJobs()
        var terminal = TerminalReporter(width: 80, height: 24)
        let text = terminal.finish(jobs, summary: Summary(jobs, interrupted: true), interrupted: true).output
        #expect(
            text
                == "\u{1B}[J\u{1B}[2Kinterrupted (1 saved, 1 paused): run the same command again to continue\n"
                + LiveBlock.showCursor)
    }
}
