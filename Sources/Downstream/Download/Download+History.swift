import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Download {
    /// The download's last events, oldest first: each request and the range it asked for, each
    /// answer (its status, `Content-Range`, `Content-Length` and validators), redirects, retries,
    /// new URLs, waits for the network, resumes, restarts and the error it failed with. For a
    /// support screen that says why a download failed, after a relaunch too.
    ///
    /// The history is kept with the download's record, so a download restored after a relaunch
    /// has it. It holds no secret (no credential header, URLs without their tokens; see
    /// ``DownloadHistoryEntry``) and is bounded: the last 32 entries, at most 4 KiB in the record;
    /// older ones are dropped. Requests and answers are saved with the record's next write (a
    /// checkpoint, a pause, the failure); retries, new URLs and errors at once. A download that
    /// completed keeps its history in memory only: its record is gone.
    ///
    /// ```swift
    /// do {
    ///     _ = try await download.fileURL
    /// } catch {
    ///     for entry in download.history {
    ///         print(entry.kind, entry.statusCode.map(String.init) ?? "", entry.range ?? "", entry.message ?? "")
    ///     }
    /// }
    /// ```
    public nonisolated var history: [DownloadHistoryEntry] {
        recordFile?.history ?? []
    }

    /// Adds what `event` tells to the history, if it is something a history keeps: retries, waits
    /// for the network and new URLs are written at once; a failure is written with the record's
    /// failed state (see ``noteFailure(_:)``).
    nonisolated func noteHistory(of event: DownloadEvent) {
        guard event.state != .failed, let entry = DownloadHistoryEntry(event: event) else { return }
        let matters = entry.kind != .resumed && entry.kind != .restarted
        recordFile?.noteHistory(entry, writesNow: matters)
    }

    /// Adds the failure with `error` to the history, before the record's state is saved (which
    /// writes it).
    func noteFailure(_ error: DownloadError) {
        if let entry = DownloadHistoryEntry(event: .failed(error)) {
            recordFile?.noteHistory(entry)
        }
    }
}
