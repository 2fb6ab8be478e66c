import Downstream
import Foundation

/// `--json`: one JSON object a line on standard output, for scripts. Every object has an
/// `event`; those about one download have its `id` (its place among the URLs, from 1).
///
/// `started` (`url`, `path`), `resumed` (`offset`), `restarted`, `retrying` (`delay` in seconds,
/// `kind`, `message`), `waitingForNetwork` (`kind`, `message`), `switchedURL` (`url`, `from`, and
/// `kind`, `message` when `from` failed), `progress` (`bytes`, `total`, `speed` in bytes per
/// second, `eta` in seconds; `null` when unknown), `completed` (`path`, `kept`: whether the file
/// that was there was kept, `reason`; for a file written, `bytes`: its size, and when it ran in
/// this run, `bytesThisRun`: the bytes this run received (less than `bytes` after a resume),
/// `seconds`: this run's time for it, `speed`: `bytesThisRun` over `seconds`), `failed` (`kind`, `status` for an HTTP status, `exitCode`,
/// `resumable`: whether the same command continues, `bytesKept`, `continuesWithNewURL`: true when
/// the server refused the URL itself and a new URL for the same file continues from the bytes kept,
/// `message`: dl's line, `detail`: Downstream's, `history`: its last requests, answers, retries,
/// redirects and errors, oldest first, as `Download.history` has them, dates in ISO 8601), `paused` (`bytes`, `total`), `interrupted`, and
/// last `summary` (`saved`, `failed`, `paused`, `exitCode`).
struct JSONReporter: Reporter {
    private var schedule: ProgressSchedule

    init(period: Duration) {
        schedule = ProgressSchedule(period: period)
    }

    mutating func report(_ occurrence: Occurrence, of job: JobStatus, among jobs: [JobStatus], at time: Duration)
        -> Emission
    {
        var line = JSONLine(event: Self.name(of: occurrence))
        line.add("id", Int64(job.number))
        switch occurrence {
        case .started:
            line.add("url", LogText.url(job.job.url))
            line.add("path", job.job.file.path)
        case .resumed(let offset):
            line.add("offset", offset)
        case .restarted:
            break
        case .retrying(let delay, let error):
            line.add("delay", Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            line.add("kind", error.kind.description)
            line.add("message", Describe.reason(error))
        case .waitingForNetwork(let error):
            line.add("kind", error.kind.description)
            line.add("message", Describe.reason(error))
        case .switchedURL(let url, let previous, let error):
            line.add("url", LogText.url(url))
            line.add("from", LogText.url(previous))
            if let error {
                line.add("kind", error.kind.description)
                line.add("message", Describe.reason(error))
            }
        case .saved(let file, let kept):
            line.add("path", file.path)
            line.add("kept", kept != nil)
            if let kept { line.add("reason", Describe.kept(kept)) }
            if kept == nil { line.add("bytes", job.progress?.bytesReceived ?? 0) }
            if let run = job.thisRun {
                line.add("bytesThisRun", run.bytes)
                line.add("seconds", Format.seconds(run.time))
                line.add("speed", Int64(run.bytesPerSecond))
            }
        case .failed(let error):
            line.add("url", LogText.url(job.job.url))
            line.add("kind", error.kind.description)
            if let status = error.statusCode { line.add("status", Int64(status)) }
            line.add("exitCode", Int64(ExitCode.failure(error).rawValue))
            line.add("resumable", error.isResumable)
            let kept = job.progress?.bytesReceived ?? 0
            line.add("bytesKept", kept)
            if kept > 0, Describe.continuesWithNewURL(error) { line.add("continuesWithNewURL", true) }
            line.add("message", Describe.failure(error, kept: kept, namedByServer: job.job.namedByServer))
            line.add("detail", LogText.escaped(error.description))
            line.add("history", json: Self.json(job.history))
        case .paused:
            line.add("bytes", job.progress?.bytesReceived ?? 0)
            line.add("total", job.progress?.expectedBytes)
        }
        return Emission(output: line.text)
    }

    /// `history` as a JSON array on one line.
    static func json(_ history: [DownloadHistoryEntry]) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(history)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func name(of occurrence: Occurrence) -> String {
        switch occurrence {
        case .started: "started"
        case .resumed: "resumed"
        case .restarted: "restarted"
        case .retrying: "retrying"
        case .waitingForNetwork: "waitingForNetwork"
        case .switchedURL: "switchedURL"
        case .saved: "completed"
        case .failed: "failed"
        case .paused: "paused"
        }
    }

    mutating func refresh(_ jobs: [JobStatus], at time: Duration) -> Emission {
        var emission = Emission()
        for job in schedule.due(jobs, at: time) {
            var line = JSONLine(event: "progress")
            line.add("id", Int64(job.number))
            line.add("bytes", job.progress?.bytesReceived ?? 0)
            line.add("total", job.progress?.expectedBytes)
            line.add("speed", Int64(job.progress?.bytesPerSecond ?? 0))
            let eta = job.progress?.estimatedTimeRemaining
            line.add("eta", eta.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 })
            emission.output += line.text
        }
        return emission
    }

    mutating func finish(_ jobs: [JobStatus], summary: Summary, interrupted: Bool) -> Emission {
        var emission = Emission()
        if interrupted {
            var line = JSONLine(event: "interrupted")
            line.add("message", Describe.interrupted)
            emission.output += line.text
        }
        var line = JSONLine(event: "summary")
        line.add("saved", Int64(summary.saved))
        line.add("failed", Int64(summary.failed))
        line.add("paused", Int64(summary.paused))
        line.add("exitCode", Int64(summary.exitCode.rawValue))
        emission.output += line.text
        return emission
    }
}

/// One JSON object on one line, its members in the order added.
struct JSONLine {
    private var members: [String] = []

    init(event: String) {
        add("event", event)
    }

    mutating func add(_ key: String, _ value: String?) {
        members.append(Self.quoted(key) + ":" + (value.map(Self.quoted) ?? "null"))
    }

    mutating func add(_ key: String, _ value: Int64?) {
        members.append(Self.quoted(key) + ":" + (value.map(String.init) ?? "null"))
    }

    mutating func add(_ key: String, _ value: Double?) {
        let number = value.flatMap { $0.isFinite ? String(format: "%.3f", $0) : nil }
        members.append(Self.quoted(key) + ":" + (number ?? "null"))
    }

    /// Adds `json`, JSON text of one line, as it is.
    mutating func add(_ key: String, json: String) {
        members.append(Self.quoted(key) + ":" + json)
    }

    mutating func add(_ key: String, _ value: Bool) {
        members.append(Self.quoted(key) + ":" + (value ? "true" : "false"))
    }

    /// The object and a newline.
    var text: String {
        "{" + members.joined(separator: ",") + "}\n"
    }

    /// `string` as a JSON string: quoted, with quotes, backslashes and control characters escaped.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
