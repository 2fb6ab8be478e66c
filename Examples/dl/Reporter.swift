import Downstream
import Foundation

/// Text for `dl`'s two output streams.
struct Emission: Equatable {
    /// For standard output.
    var output = ""
    /// For standard error.
    var errors = ""
}

/// Turns what happens to a run's downloads into text: on a terminal, in plain lines, in JSON, or
/// (quiet) almost nothing. Pure: the session writes what it returns.
protocol Reporter {
    /// Tells `occurrence` of `job`; `jobs` are all of the run's, `job` among them.
    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    /// Called after progress changed and on a timer: the progress to show now, if any.
    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission
    /// The terminal's size changed.
    mutating func resize(width: Int, height: Int)
    /// The run ended; `interrupted` when by Ctrl-C.
    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission
    /// What to write when the process exits at once, on a second Ctrl-C.
    var abandonment: String { get }
}

extension Reporter {
    mutating func resize(width: Int, height: Int) {}
    var abandonment: String { "" }
}

/// The words `dl` uses for what happened, shared by its outputs.
enum Describe {
    /// Why a download that failed with `error` and kept `kept` bytes failed, in a line, with
    /// what to do about it.
    static func failure(_ error: DownloadError, kept: Int64, namedByServer: Bool = false) -> String {
        if namedByServer, error.kind == .destinationExists, let path = error.path {
            return LogText.escaped(takenName(path, kept: kept, isResumable: error.isResumable))
        }
        let reason = reason(error)
        guard kept > 0, error.kind != .destinationExists else { return reason }
        if error.isResumable {
            return reason + "; \(Format.bytes(kept)) kept: run the same command again to continue"
        }
        if continuesWithNewURL(error) {
            return reason + "; \(Format.bytes(kept)) kept: a new URL for the same file continues from them"
        }
        return reason
    }

    /// Why a file named by its server (`--content-disposition`) could not be saved: the name is
    /// the one of the file at `path`, which stays as it is.
    private static func takenName(_ path: String, kept: Int64, isResumable: Bool) -> String {
        let name = (path as NSString).lastPathComponent
        let folder = (path as NSString).deletingLastPathComponent
        let taken = "the server names the file \(name), and \(folder) has a file by that name"
        guard isResumable, kept > 0 else {
            return taken + ": add --unique to save the new one beside it, --overwrite to replace it,"
                + " or -nc to keep it"
        }
        return taken + "; \(Format.bytes(kept)) kept: run the same command with --unique to save the new one beside it,"
            + " --overwrite to replace it, or move the file away and run the same command again"
    }

    /// Whether the server refused the URL itself (expired, forbidden, gone): the same file from
    /// another URL (a fresh link, a mirror) continues from the bytes kept.
    static func continuesWithNewURL(_ error: DownloadError) -> Bool {
        guard error.kind == .httpStatus, let status = error.statusCode else { return false }
        return [401, 403, 404, 410].contains(status)
    }

    /// Why `error` happened, in words, with what a server said escaped (see `LogText`).
    static func reason(_ error: DownloadError) -> String {
        LogText.escaped(unescapedReason(error))
    }

    private static func unescapedReason(_ error: DownloadError) -> String {
        let reason: String
        switch error.kind {
        case .httpStatus:
            reason = "the server answered HTTP \(error.statusCode.map(String.init) ?? "?") (\(error.reason))"
        case .network where error.urlErrorCode == .timedOut:
            // -T (no byte for N seconds), -m (the file's deadline), --connect-timeout: each says which.
            reason = "timed out: \(error.reason)"
        case .network:
            reason = "the connection failed (\(error.reason))"
        case .destinationExists where !error.isResumable:
            let path = error.path ?? "the file"
            return "\(path) exists: add -c to continue it (if another program left it half done),"
                + " --no-clobber to keep it, -N to download it again only if it changed,"
                + " --overwrite to replace it, or --unique to save the new one beside it"
        case .existingFileNotContinued:
            let path = error.path ?? "the file"
            return "\(path) was not continued: \(error.reason); it was left as it was: add --overwrite to"
                + " download the file again over it, or --unique to save it beside"
        case .destinationExists:
            return "\(error.path ?? "the file") appeared meanwhile: move it away and run the same command again"
                + " to continue from the bytes kept"
        case .integrityCheckFailed:
            reason = "the file is not the one expected: \(error.reason)"
        case .allURLsFailed:
            reason = "every URL failed: " + error.urlFailures.map(\.description).joined(separator: "; ")
        case .cancelled:
            reason = "cancelled"
        case .fileSystem, .insufficientSpace:
            // Which file or folder: the one dl was told, or one it made beside it; none for a
            // connection without a descriptor (too many open files).
            reason = "\(error.kind)" + (error.path.map { " at \($0)" } ?? "") + ": \(error.reason)"
        case .destinationInUse:
            reason = "\(error.path ?? "the file") is being downloaded by \(error.reason)"
        default:
            reason = "\(error.kind): \(dlWords(error.reason))"
        }
        return reason
    }

    /// The library's settings a reason names, as dl's options.
    private static let options = [
        "(DownloadRequest.acceptsCompressedBody)": "(--compressed takes it, decoded)",
        "(maximumFileSize)": "(--max-filesize)",
    ]

    /// `reason` with the library's settings it ends with named as dl's options.
    private static func dlWords(_ reason: String) -> String {
        for (setting, option) in options where reason.hasSuffix(setting) {
            return reason.dropLast(setting.count) + option
        }
        return reason
    }

    /// The progress of `progress` in a line: `33%  1.00 MB/3.00 MB  1.20 MB/s  eta 2s`.
    /// `showsSpeed`: false for a download that stopped (its speed is no news).
    static func progress(_ progress: DownloadProgress?, showsSpeed: Bool = true) -> String {
        let received = progress?.bytesReceived ?? 0
        var parts: [String] = []
        if let fraction = progress?.fractionCompleted {
            parts.append(Format.percent(fraction))
        }
        parts.append(Format.bytes(received) + (progress?.expectedBytes.map { "/" + Format.bytes($0) } ?? ""))
        guard showsSpeed else { return parts.joined(separator: "  ") }
        parts.append(Format.speed(progress?.bytesPerSecond ?? 0))
        if let remaining = progress?.estimatedTimeRemaining {
            parts.append("eta " + Format.duration(remaining))
        }
        return parts.joined(separator: "  ")
    }

    /// How much a saved file holds, and, when it ran in this run, how long it took and how fast:
    /// ` (3.00 MB in 1.2s, 2.50 MB/s)`, as wget says it. A file continued from bytes an earlier
    /// run kept says what this run received, which the time and speed are about:
    /// ` (3.00 MB; this run 2.00 MB in 1.2s, 1.67 MB/s)`.
    static func saved(_ job: JobStatus) -> String {
        let size = Format.bytes(job.progress?.bytesReceived ?? 0)
        guard let run = job.thisRun else { return " (\(size))" }
        let speed = Format.speed(run.bytesPerSecond)
        guard job.bytesAtStart > 0 else { return " (\(size) in \(Format.elapsed(run.time)), \(speed))" }
        return " (\(size); this run \(Format.bytes(run.bytes)) in \(Format.elapsed(run.time)), \(speed))"
    }

    /// What `dl` says about a file it kept.
    static func kept(_ reason: KeptFile) -> String {
        switch reason {
        case .exists: "already there, --no-clobber"
        case .notModified: "not modified on the server"
        case .matchesChecksum: "it has the expected checksum"
        case .savedEarlier: "saved by an earlier run"
        case .complete: "already complete: as long as the server's file, and its last 64 KiB are the server's"
        }
    }

    /// The line for `occurrence` of `job`, as plain output prints it.
    static func line(_ occurrence: Occurrence, of job: JobStatus) -> String {
        let name = job.job.name
        switch occurrence {
        case .started:
            return "started \(name) from \(LogText.url(job.job.url))"
        case .resumed(let offset):
            return "resumed \(name) from \(Format.bytes(offset)) kept (byte \(offset))"
        case .restarted:
            return "restarted \(name) from its first byte (the server's file changed, or it ignored the range)"
        case .retrying(let delay, let error):
            return "retrying \(name) in \(Format.elapsed(delay)): \(reason(error))"
        case .waitingForNetwork(let error):
            return "waiting for the network for \(name): \(reason(error))"
        case .switchedURL(let url, let previous, let error?):
            return "\(name): switched to \(LogText.url(url)) (\(LogText.url(previous)): \(reason(error)))"
        case .switchedURL(let url, _, nil):
            return "\(name): switched to \(LogText.url(url))"
        case .saved(let file, let kept?):
            return "kept \(file.path) (\(Describe.kept(kept)))"
        case .saved(let file, nil):
            return "saved \(file.path)" + saved(job)
        case .failed(let error):
            let kept = job.progress?.bytesReceived ?? 0
            return "failed \(name): \(failure(error, kept: kept, namedByServer: job.job.namedByServer))"
        case .paused:
            return "paused \(name) at \(Describe.progress(job.progress, showsSpeed: false))"
        }
    }

    /// The line that says how to continue after Ctrl-C.
    static let interrupted = "interrupted: run the same command again to continue"

    /// The last lines of a run of `count` downloads: how to continue after Ctrl-C, and for
    /// several, what became of them, said once (`interrupted (1 saved, 2 paused): run the same
    /// command again to continue`).
    static func ending(_ summary: Summary, count: Int, interrupted: Bool) -> [String] {
        guard interrupted else { return count > 1 ? [self.summary(summary)] : [] }
        guard count > 1 else { return [self.interrupted] }
        return ["interrupted (\(counts(summary))): run the same command again to continue"]
    }

    /// `1 saved, 1 failed, 2 paused`: the failed and paused only when there are some.
    private static func counts(_ summary: Summary) -> String {
        var parts = ["\(summary.saved) saved"]
        if summary.failed > 0 { parts.append("\(summary.failed) failed") }
        if summary.paused > 0 { parts.append("\(summary.paused) paused") }
        return parts.joined(separator: ", ")
    }

    /// The last line of a run of several downloads.
    static func summary(_ summary: Summary) -> String {
        let status =
            summary.exitCode == .success ? "" : " (exit status \(summary.exitCode): \(summary.exitCode.meaning))"
        return counts(summary) + status
    }
}
