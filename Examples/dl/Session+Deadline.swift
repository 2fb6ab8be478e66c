import Downstream
import Foundation

/// `-m SECONDS`: each file's deadline, counted from its first request (curl's `--max-time`, which
/// is per transfer too: a file queued behind others does not lose its time waiting). A file past
/// it is paused, its bytes and record kept for the same command to continue, and fails.
extension Session {
    /// Ends the downloads that ran past the plan's deadline by `time` (checked on the run's tick,
    /// so within a tick of it).
    func endOverdueDownloads(at time: Duration) async {
        guard let limit = plan.maximumTime else { return }
        for index in jobs.indices where !jobs[index].isFinished {
            guard let started = jobs[index].startedAt, time - started >= limit else { continue }
            let download = downloads[index]
            await download.pause()
            // All its bytes may have come meanwhile: then it completed, or failed for good.
            await handle(await Self.end(of: download) ?? .failed(Self.overdue(after: limit)), of: index, at: time)
        }
    }

    /// The failure of a file not finished within `limit`: a timeout (exit status 4, as curl's 28
    /// is its timeout), whose bytes are kept.
    nonisolated static func overdue(after limit: Duration) -> DownloadError {
        DownloadError(
            .network, reason: "did not finish within \(secondsText(limit)) (-m)", urlErrorCode: .timedOut)
    }

    /// Seconds as they were given: `2 s`, `0.5 s`.
    private nonisolated static func secondsText(_ time: Duration) -> String {
        let seconds = Format.seconds(time)
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }
}
