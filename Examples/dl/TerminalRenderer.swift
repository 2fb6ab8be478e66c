import Downstream

/// The live block on a terminal, as lines: one per active download (name, bar, percent,
/// size done/total, speed, time remaining) and a total line, each narrower than the terminal.
/// Pure: the same downloads, time and size give the same lines.
///
/// ```
/// movie.mp4     [=========>          ]  45%   1.35 MB/3.00 MB  1.20 MB/s  eta 2s
/// notes.pdf     [===>                ]  16%    320 kB/2.00 MB   800 kB/s  eta 3s
/// total 1/3     [=======>            ]  38%   2.17 MB/5.70 MB  2.00 MB/s  eta 2s
/// ```
///
/// Narrower terminals drop the columns that matter least first (time, speed, size), then the
/// bar; names are cut in the middle (`very-long…me.iso`).
struct TerminalRenderer {
    /// One line of the block, before layout.
    struct Row: Equatable {
        var name: String
        /// nil for a row that says something else (`note`).
        var progress: DownloadProgress?
        /// What the download waits for, for a row without progress.
        var note: String?
    }

    /// The columns after the bar, in the order they are dropped from the end.
    enum Column: CaseIterable {
        case percent, size, speed, remaining

        /// The width it takes, its widest value.
        var width: Int {
            switch self {
            case .percent: 4  // 100%
            case .size: 15  // 9.99 MB/9.99 MB
            case .speed: 9  // 9.99 MB/s
            case .remaining: 10  // eta 10h05m
            }
        }
    }

    /// How the columns are placed.
    struct Layout: Equatable {
        var columns: [Column]
        var nameWidth: Int
        /// 0 for no bar.
        var barWidth: Int
    }

    static let minimumBarWidth = 10
    static let minimumNameWidth = 12

    /// The lines of the live block for `jobs` at `time`, for a terminal of `width` columns and
    /// `height` lines.
    static func lines(_ jobs: [JobStatus], at time: Duration, width: Int, height: Int) -> [String] {
        var rows = jobs.filter(\.isActive).map { row(for: $0, at: time) }
        let totals = Totals(jobs)
        // Leave a line for the total, and one so that the block never fills the screen.
        let room = max(1, height - 2)
        if rows.count > room {
            let hidden = rows.count - (room - 1)
            rows = Array(rows.prefix(room - 1))
            rows.append(Row(name: "…", note: "and \(hidden) more"))
        }
        if jobs.count > 1 {
            let progress = DownloadProgress(
                bytesReceived: totals.bytesReceived, expectedBytes: totals.expectedBytes,
                bytesPerSecond: totals.bytesPerSecond, estimatedTimeRemaining: totals.estimatedTimeRemaining)
            rows.append(Row(name: "total \(totals.finished)/\(totals.count)", progress: progress))
        }
        let layout = self.layout(longestName: rows.map { Columns.width($0.name) }.max() ?? 0, width: width)
        return rows.map { line($0, layout: layout, width: width) }
    }

    static func row(for job: JobStatus, at time: Duration) -> Row {
        switch job.phase {
        case .retrying(let until):
            let wait = until > time ? " in " + Format.duration(until - time) : ""
            return Row(name: job.job.name, note: "retrying\(wait)")
        case .waitingForNetwork:
            return Row(name: job.job.name, note: "waiting for the network")
        default:
            return Row(
                name: job.job.name,
                progress: job.progress ?? DownloadProgress(bytesReceived: 0, expectedBytes: nil))
        }
    }

    /// The richest layout that fits `width`: with a bar if one fits, with as many columns as fit.
    static func layout(longestName: Int, width: Int) -> Layout {
        let usable = max(1, width - 1)  // the last column would make some terminals wrap
        let minimumName = min(longestName, minimumNameWidth)
        let sets = (0...Column.allCases.count).reversed().map { Array(Column.allCases.prefix($0)) }
        for withBar in [true, false] {
            // A bar without its percentage is worth less than the percentage alone.
            for columns in sets where !withBar || !columns.isEmpty {
                let room = usable - columns.reduce(0) { $0 + $1.width + 2 }
                if withBar {
                    guard room >= minimumName + 2 + minimumBarWidth else { continue }
                    let name = min(longestName, max(minimumName, room * 2 / 5), room - 2 - minimumBarWidth)
                    return Layout(columns: columns, nameWidth: name, barWidth: room - name - 2)
                }
                guard room >= minimumName else { continue }
                return Layout(columns: columns, nameWidth: min(longestName, room), barWidth: 0)
            }
        }
        return Layout(columns: [], nameWidth: min(longestName, usable), barWidth: 0)
    }

    static func line(_ row: Row, layout: Layout, width: Int) -> String {
        let usable = max(1, width - 1)
        let name = Columns.pad(Columns.truncate(row.name, to: layout.nameWidth), to: layout.nameWidth)
        guard let progress = row.progress else {
            let note = row.note.map { "  " + $0 } ?? ""
            return Columns.truncate(name + note, to: usable)
        }
        var line = name
        if layout.barWidth > 0 {
            line += "  " + Format.bar(progress.fractionCompleted, width: layout.barWidth)
        }
        for column in layout.columns {
            let text: String
            switch column {
            case .percent:
                text = progress.fractionCompleted.map(Format.percent) ?? ""
            case .size:
                text =
                    Format.bytes(progress.bytesReceived) + (progress.expectedBytes.map { "/" + Format.bytes($0) } ?? "")
            case .speed:
                text = Format.speed(progress.bytesPerSecond)
            case .remaining:
                text = progress.estimatedTimeRemaining.map { "eta " + Format.duration($0) } ?? ""
            }
            line += "  " + Columns.pad(text, to: column.width, leading: column != .remaining)
        }
        // Trailing spaces of an empty last column would only push the cursor.
        while line.hasSuffix(" ") { line.removeLast() }
        return Columns.truncate(line, to: usable)
    }
}

/// The escape sequences that redraw the live block in place, below the lines that stay.
///
/// The cursor rests at the start of the line below the block. A redraw goes up over the block
/// (`ESC[nA`) and writes the new block, each line after erasing its row (`ESC[2K`). Lines that
/// stay, which may be wider than the terminal and wrap, and a block shorter than the old one,
/// first erase everything below the cursor (`ESC[J`), so that nothing of the old block is left.
struct LiveBlock {
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"

    /// The lines of the block on screen now.
    private(set) var height = 0

    /// The text that writes `lines` above the block, for good, and `block` in place of the old one.
    mutating func redraw(above lines: [String] = [], block: [String]) -> String {
        var text = height > 0 ? "\r\u{1B}[\(height)A" : ""
        if !lines.isEmpty || block.count < height {
            text += "\u{1B}[J"
        }
        for line in lines + block {
            text += "\u{1B}[2K" + line + "\n"
        }
        height = block.count
        return text
    }
}
