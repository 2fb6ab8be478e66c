import Downstream

/// `--progress=dot` (wget's style): lines as plain output prints them, and the progress as dots,
/// one per ``DotStyle/dotBytes`` received, in groups, a line per ``DotStyle/lineBytes`` with the
/// percentage and the speed at its end; on a terminal and a pipe alike. Dots are written as bytes
/// come; with several files at once, each line says whose it is.
struct DotReporter: Reporter {
    let style: DotStyle
    private var plain = PlainReporter(period: .zero)
    /// The bytes each download's dots stand for so far, by number.
    private var dotted: [Int: Int64] = [:]
    /// The download whose line is being written, when one is.
    private var openLine: Int?
    /// Where each resumed download's dots start: the bytes it kept (0 for the others). Not
    /// ``JobStatus/bytesAtStart``, which is the progress seen when it started: progress and
    /// events come apart, and a fast download's progress may be all of it by then.
    private var starts: [Int: Int64] = [:]

    init(style: DotStyle) {
        self.style = style
    }

    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    {
        var output = ""
        var isEnd = false
        if case .saved(_, nil) = occurrence {
            // Its last dots; its last line says no speed (the saved line says it).
            output += dots(for: job, among: jobs)
            isEnd = true
        }
        // Every line of text starts on a line of its own: the open line of dots ends first (another
        // download's goes on later in a new line).
        if let open = openLine {
            output +=
                open == job.number
                ? endOfLine(for: job, at: dotted[job.number] ?? 0, withSpeed: !isEnd)
                : "\n"
            openLine = nil
        }
        switch occurrence {
        case .resumed(let offset):
            starts[job.number] = offset
            dotted[job.number] = nil
        case .restarted:
            starts[job.number] = nil
            dotted[job.number] = nil
        default: break
        }
        var emission = plain.report(occurrence, of: job, among: jobs, at: time)
        emission.output = output + emission.output
        return emission
    }

    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission {
        var output = ""
        for job in jobs where job.phase == .running {
            output += dots(for: job, among: jobs)
        }
        return Emission(output: output)
    }

    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission {
        var emission = plain.finish(jobs, summary: summary, interrupted: interrupted)
        if openLine != nil {
            emission.output = "\n" + emission.output
            openLine = nil
        }
        return emission
    }

    /// The dots `job`'s bytes received since the last ones stand for, with the lines they start
    /// and end.
    private mutating func dots(for job: JobStatus, among jobs: [JobStatus]) -> String {
        let received = job.progress?.bytesReceived ?? 0
        // A download's dots start at the line of its first byte in this run (a resumed one's
        // bytes kept are blanks).
        var done = dotted[job.number] ?? (min(starts[job.number] ?? 0, received) / style.dotBytes * style.dotBytes)
        var text = ""
        while done + style.dotBytes <= received {
            // Below the dots of a line: it fits any Int.
            let inLine = Int(clamping: done % style.lineBytes / style.dotBytes)
            if openLine != job.number {
                if openLine != nil { text += "\n" }
                text += lineStart(for: job, at: done - done % style.lineBytes, among: jobs)
                text += blanks(before: inLine)
                openLine = job.number
            }
            if inLine > 0, inLine % style.dotsPerGroup == 0 { text += " " }
            text += "."
            done += style.dotBytes
            if done % style.lineBytes == 0 {
                text += endOfLine(for: job, at: done)
            }
        }
        dotted[job.number] = done
        return text
    }

    /// The start of a line: where in the file it starts, in KiB (and whose, with several files).
    private func lineStart(for job: JobStatus, at offset: Int64, among jobs: [JobStatus]) -> String {
        let position = Columns.pad("\(offset >> 10)K", to: 8, leading: true)
        return jobs.count > 1 ? "\(job.job.name) \(position) " : "\(position) "
    }

    /// The spaces that stand for `count` dots not drawn (bytes kept from an earlier run).
    private func blanks(before count: Int) -> String {
        String(repeating: " ", count: style.width(of: count))
    }

    /// The end of `job`'s line, whose dots end at byte `end`: blanks to where a full line ends, the
    /// part of the file up to there, when its length is known, and the speed.
    private mutating func endOfLine(for job: JobStatus, at end: Int64, withSpeed: Bool = true) -> String {
        openLine = nil
        // Below the dots of a line: it fits any Int.
        let dots = Int(clamping: end % style.lineBytes / style.dotBytes)
        let written = dots == 0 ? style.dotsPerLine : dots
        var parts = [String(repeating: " ", count: style.width(of: style.dotsPerLine) - style.width(of: written))]
        if let expected = job.progress?.expectedBytes, expected > 0 {
            // The last line is all of the file: its last bytes are less than a dot.
            let done = expected - end < style.dotBytes ? expected : end
            parts.append(Columns.pad(Format.percent(Double(done) / Double(expected)), to: 4, leading: true))
        }
        // None for dots drawn once the download stopped (all of a fast one's at its end).
        if withSpeed, let speed = job.progress?.bytesPerSecond, speed > 0 { parts.append(Format.speed(speed)) }
        return parts.joined(separator: "  ") + "\n"
    }
}

/// How much a dot stands for in `--progress=dot[:STYLE]`, as wget's styles say.
struct DotStyle: Equatable {
    /// The bytes of one dot.
    var dotBytes: Int64
    /// The dots of a group, set apart by a space.
    var dotsPerGroup: Int
    /// The dots of a line.
    var dotsPerLine: Int

    var lineBytes: Int64 { dotBytes * Int64(dotsPerLine) }

    /// The columns `count` dots take, with the spaces between their groups.
    func width(of count: Int) -> Int {
        count + max(0, count - 1) / dotsPerGroup
    }

    /// 1 KiB a dot, 10 a group, 50 KiB a line.
    static let standard = DotStyle(dotBytes: 1 << 10, dotsPerGroup: 10, dotsPerLine: 50)
    /// 8 KiB a dot, 16 a group, 384 KiB a line.
    static let binary = DotStyle(dotBytes: 8 << 10, dotsPerGroup: 16, dotsPerLine: 48)
    /// 64 KiB a dot, 8 a group, 3 MiB a line.
    static let mega = DotStyle(dotBytes: 64 << 10, dotsPerGroup: 8, dotsPerLine: 48)
    /// 1 MiB a dot, 8 a group, 32 MiB a line.
    static let giga = DotStyle(dotBytes: 1 << 20, dotsPerGroup: 8, dotsPerLine: 32)

    /// The styles by name, as `--progress=dot:NAME` takes them.
    static let named: [(name: String, style: DotStyle)] = [
        ("default", .standard), ("binary", .binary), ("mega", .mega), ("giga", .giga),
    ]
}

extension DotStyle {
    /// The style `--progress` names: nil for `bar`; `dot`, or `dot:` and a style's name.
    static func parse(_ value: String) throws(UsageError) -> DotStyle? {
        let parts = value.lowercased().split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count) {
        case ("bar", 1): return nil
        case ("dot", 1): return .standard
        case ("dot", _):
            if let style = named.first(where: { $0.name == parts[1] })?.style { return style }
        default: break
        }
        throw .invalidValue(
            option: "--progress", value: value,
            expected: "one of bar, dot, " + named.map { "dot:\($0.name)" }.joined(separator: ", "))
    }
}
