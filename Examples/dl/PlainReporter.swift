import Downstream

/// Output to a file or a pipe: a line per event, and the progress of running downloads every
/// ``period`` (at every change with a period of 0), so that a log shows the run without
/// flooding it. Failures go to standard error, as wget's and curl's do: `dl URL >/dev/null`
/// still shows them.
struct PlainReporter: Reporter {
    private var schedule: ProgressSchedule

    init(period: Duration) {
        schedule = ProgressSchedule(period: period)
    }

    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    {
        let line = Describe.line(occurrence, of: job) + "\n"
        if case .failed = occurrence { return Emission(errors: line) }
        return Emission(output: line)
    }

    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission {
        var emission = Emission()
        for job in schedule.due(jobs, at: time) {
            emission.output += "\(job.job.name)  \(Describe.progress(job.progress))\n"
        }
        return emission
    }

    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission {
        let lines = Describe.ending(summary, count: jobs.count, interrupted: interrupted)
        return Emission(output: lines.map { $0 + "\n" }.joined())
    }
}

/// `--quiet`: nothing on success; failures, and how to continue after Ctrl-C, on standard error.
struct QuietReporter: Reporter {
    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    {
        guard case .failed = occurrence else { return Emission() }
        return Emission(errors: "dl: " + Describe.line(occurrence, of: job) + "\n")
    }

    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission {
        Emission()
    }

    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission {
        interrupted ? Emission(errors: "dl: " + Describe.interrupted + "\n") : Emission()
    }
}

/// When plain and JSON output print progress: every running download each `period`, or, with
/// a period of 0, each download whose bytes changed since its last line.
struct ProgressSchedule {
    let period: Duration
    private var last = Duration.zero
    /// The bytes of each download (by number) in its last progress line.
    private var printedBytes: [Int: Int64] = [:]

    init(period: Duration) {
        self.period = period
    }

    /// The downloads to print the progress of at `time` (since the run started).
    mutating func due(_ jobs: [JobStatus], at time: Duration) -> [JobStatus] {
        let due: [JobStatus]
        if period == .zero {
            due = jobs.filter { $0.phase == .running && $0.progress?.bytesReceived != printedBytes[$0.number] }
        } else {
            guard time - last >= period else { return [] }
            last = time
            due = jobs.filter { $0.phase == .running }
        }
        for job in due {
            printedBytes[job.number] = job.progress?.bytesReceived
        }
        return due
    }
}

/// `-nv` (wget's `--no-verbose`): one line per file, saved or failed, and no progress; the
/// summary of several and how to continue after Ctrl-C, as in plain output.
struct BriefReporter: Reporter {
    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    {
        switch occurrence {
        case .failed: Emission(errors: Describe.line(occurrence, of: job) + "\n")
        case .saved: Emission(output: Describe.line(occurrence, of: job) + "\n")
        default: Emission()
        }
    }

    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission {
        Emission()
    }

    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission {
        var plain = PlainReporter(period: .zero)
        return plain.finish(jobs, summary: summary, interrupted: interrupted)
    }
}
