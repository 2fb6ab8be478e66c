import Downstream

/// Output to a terminal: the live block (``TerminalRenderer``) redrawn in place at most every
/// ``redrawInterval``, and a line that stays above it for each download that ends (`saved PATH`,
/// `failed NAME: reason`) or switches to a mirror.
struct TerminalReporter: Reporter {
    static let redrawInterval = Duration.milliseconds(100)

    private(set) var width: Int
    private(set) var height: Int
    private var block = LiveBlock()
    private var lastDraw: Duration?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    {
        switch occurrence {
        case .saved, .failed, .paused, .switchedURL, .restarted, .retrying, .waitingForNetwork, .resumed:
            // A retry and a wait for the network say why above the bars, as wget does; the row
            // shows the countdown. A resume says from where, as on a pipe: the bar alone would
            // not tell the bytes kept from the bytes received now.
            return draw(jobs, at: time, above: [Describe.line(occurrence, of: job)])
        case .started:
            // The download's row shows it.
            return draw(jobs, at: time)
        }
    }

    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission {
        if let lastDraw, time - lastDraw < Self.redrawInterval { return Emission() }
        return draw(jobs, at: time)
    }

    mutating func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission {
        let lines = Describe.ending(summary, count: jobs.count, interrupted: interrupted)
        return Emission(output: block.redraw(above: lines, block: []) + LiveBlock.showCursor)
    }

    var abandonment: String { "\n" + LiveBlock.showCursor }

    private mutating func draw(_ jobs: [JobStatus], at time: Duration, above lines: [String] = []) -> Emission {
        let first = lastDraw == nil ? LiveBlock.hideCursor : ""
        lastDraw = time
        let block = TerminalRenderer.lines(jobs, at: time, width: width, height: height)
        return Emission(output: first + self.block.redraw(above: lines, block: block))
    }
}
