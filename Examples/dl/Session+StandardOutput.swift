import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-O -`: the one file is downloaded into dl's store (`stdout/NAME`), as any other, and its bytes
/// go to standard output as they reach the disk (see ``StandardOutputStream``). What cannot be
/// taken back ends the run clearly: a file that changed on the server after bytes went out, binary
/// bytes refused on a terminal, a reader that went away (then dl ends as `SIGPIPE` ends a filter).
extension Session {
    /// The stream of `download`'s bytes to standard output, telling `continuation` when it ends
    /// early. `keptBytes`: what an earlier run kept for it, read before it started again (the
    /// progress of a download under way says what this run received too).
    func makeStandardOutput(
        for download: Download, keptBytes: Int64, continuation: AsyncStream<Update>.Continuation
    ) -> StandardOutputStream {
        StandardOutputStream(
            partial: download.partialFileURL, keptBytes: keptBytes,
            refusesBinary: !plan.forcesStandardOutput && isatty(STDOUT_FILENO) == 1
        ) { failure in
            continuation.yield(.standardOutputEnded(failure))
        }
    }

    /// `event` as the run reports it with the file on standard output: nil for one to leave out
    /// (the stream ended it already); a completed file once all of it went out (or why it could
    /// not); a failure that says what already went out.
    func streamed(_ event: DownloadEvent, of index: Int) async -> DownloadEvent? {
        guard let stream = standardOutput else { return event }
        if jobs[index].isFinished { return nil }
        if event.resumeOffset != nil {
            stream.answered()
            return event
        }
        if event == .restarted {
            // Bytes that went out cannot be taken back: the failure comes from the stream.
            return await stream.restarted() == nil ? event : nil
        }
        if let file = event.fileURL {
            guard let failure = await stream.finish(at: file) else {
                unlink(file.path)
                return .completed(URL(fileURLWithPath: plan.standardOutputPath ?? "/dev/stdout"))
            }
            // Complete: the same command writes it out without downloading it again.
            savedFiles?.remember(jobs[index].job.url, savedAt: file)
            if case .closed = failure { return nil }
            return .failed(error(for: failure))
        }
        if event.state == .failed {
            // What came went out first, as it would have: the stream is never behind the end. (All
            // the file has: its bytes are the server's, in order; one found wrong as a whole was
            // removed by the library, and is still read through the stream's open descriptor.)
            await stream.drain(upTo: .max)
        }
        if let error = event.error, event.state == .failed, error.kind == .integrityCheckFailed {
            let written = await stream.writtenCount()
            guard written > 0 else { return event }
            return .failed(
                DownloadError(
                    .integrityCheckFailed,
                    reason: error.reason + "; its \(Format.bytes(written)) already went to standard output"))
        }
        return event
    }

    /// The stream to standard output ended before the file's end: a reader that went away ends
    /// the run; otherwise the download pauses (its bytes stay in the store) and fails with why.
    func standardOutputEnded(_ failure: StandardOutputStream.Failure, at time: Duration) async {
        let index = 0
        guard !jobs[index].isFinished else { return }
        if case .closed = failure {
            ClosedOutput.shared.notice()
            return
        }
        await downloads[index].pause()
        jobs[index].update(downloads[index].currentProgress)
        await handle(.failed(error(for: failure)), of: index, at: time, streamed: true)
    }

    /// The error a job fails with when its stream ended with `failure`.
    private func error(for failure: StandardOutputStream.Failure) -> DownloadError {
        let written = failure.written
        switch failure {
        case .changed:
            return DownloadError(
                .serverFileChanged,
                reason: "the file changed on the server after \(written) bytes were written to standard output,"
                    + " which cannot take them back: run the same command again for the new file")
        case .binary:
            let start =
                written == 0
                ? "binary output can mess up your terminal: nothing was written"
                : "binary output can mess up your terminal: it stopped after \(written) bytes of text"
            return DownloadError(
                .fileSystem,
                reason: start + "; pipe it (| less, | tar x), save it with -O FILE, or give -o - to write it anyway",
                path: "standard output")
        case .closed:
            return DownloadError(.fileSystem, reason: "standard output was closed", path: "standard output")
        case .failed(let reason, _):
            return DownloadError(.fileSystem, reason: reason, path: "standard output")
        }
    }

    /// Standard output was closed: pauses every download (its bytes and record stay in the store,
    /// for the same command), gives the store up and ends the process by `SIGPIPE`. Nothing is
    /// reported: a filter whose reader left ends quietly.
    func endForClosedOutput(_ manager: DownloadManager) async -> Never {
        await withTaskGroup(of: Void.self) { group in
            for download in downloads {
                group.addTask { await download.pause() }
            }
        }
        savedFiles?.save()
        await manager.invalidate()
        ClosedOutput.endProcess()
    }
}
