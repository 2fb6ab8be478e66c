import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of `dl`: starts the plan's downloads, follows each through the `Download` that
/// `DownloadManager.download(_:)` returned for it (never through the manager's list, which also
/// holds downloads of earlier runs restored from the store), reports, and pauses them all on
/// Ctrl-C.
@MainActor
final class Session {
    /// What the run reacts to, in one stream so that one loop owns the state.
    enum Update: Sendable {
        case event(Int, DownloadEvent)
        case progress(Int, DownloadProgress)
        case tick
        case resize
        case interrupt
        /// `-O -`: the stream to standard output ended before the file's end.
        case standardOutputEnded(StandardOutputStream.Failure)
        /// A write to standard output failed: its reader went away.
        case outputClosed
    }

    /// The name of dl's store: `$XDG_DATA_HOME/Downstream/dl` (on every platform, when it is
    /// set), else the library's default (`$HOME/.local/share/Downstream/dl` on Linux, Application
    /// Support on Apple platforms). A rerun finds the bytes an interrupted run kept.
    static let identifier = "dl"
    static let tickInterval = Duration.milliseconds(250)
    /// The failures dl does not try again by itself, unlike the library (see `--help`).
    nonisolated static let failsAtOnce: Set<URLError.Code> = [.cannotFindHost, .dnsLookupFailed, .cannotConnectToHost]

    private(set) var plan: Plan
    /// Where reports go: standard output, or standard error when the file goes there (`-O -`).
    private var reports: Int32 { plan.writesToStandardOutput ? STDERR_FILENO : STDOUT_FILENO }
    private var reporter: any Reporter
    private let isTerminal: Bool
    let environment: [String: String]
    var jobs: [JobStatus]
    private(set) var downloads: [Download] = []
    /// `-O -`: the file's bytes on their way to standard output.
    private(set) var standardOutput: StandardOutputStream?
    /// The file at each job's destination before it started, if there was one.
    private var existingFiles: [FileState?] = []
    /// Whether each job's file is one an earlier run saved, unchanged: it counts as saved.
    private var savedEarlier: [Bool] = []
    /// The files this run and earlier ones saved.
    var savedFiles: SavedFiles?
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    /// The cookies of the run (`-b`, `--cookie-jar`), if any.
    let cookieJar: CookieJar?

    init(plan: Plan, reporter: any Reporter, isTerminal: Bool, environment: [String: String]) {
        self.plan = plan
        self.reporter = reporter
        self.isTerminal = isTerminal
        self.environment = environment
        jobs = plan.jobs.enumerated().map { JobStatus(job: $1, number: $0 + 1) }
        start = clock.now
        cookieJar = plan.http.makeCookieJar()
    }

    /// Runs the downloads to their end, or until Ctrl-C; returns the exit status.
    func run() async -> ExitCode {
        let manager: DownloadManager
        do {
            manager = try DownloadManager(configuration: configuration)
        } catch {
            // A store dl cannot make or use (no permission, a read-only place): the library's
            // words name the path.
            Terminal.write("dl: cannot start: \(error.reason)\n", to: STDERR_FILENO)
            return .generic
        }
        if plan.writesToStandardOutput {
            placeInStore(manager.storeDirectory)
        }
        if plan.trust?.acceptsAnyCertificate == true {
            Terminal.write(
                "dl: WARNING: certificates are not checked (-k): anyone on the way can read and change the files\n",
                to: STDERR_FILENO)
        }
        if plan.http.headsOnly {
            let status = await printHeads(with: manager)
            await manager.invalidate()
            return ExitCode.combined([status, saveCookies()])
        }
        let (updates, continuation) = AsyncStream.makeStream(of: Update.self)
        let signals = handleSignals(continuation)
        ClosedOutput.shared.whenClosed { continuation.yield(.outputClosed) }
        ClosedOutput.shared.watch()
        var tasks: [Task<Void, Never>] = []
        let savedFiles = SavedFiles(storeDirectory: manager.storeDirectory)
        for (index, job) in plan.jobs.enumerated() {
            var job = job
            if job.namedByServer,
                let saved = savedFiles.savedFile(of: job.url, in: job.file.deletingLastPathComponent())
            {
                // Named by its server in an earlier run, and still as it was saved: that file.
                job.file = saved
                job.namedByServer = false
                plan.jobs[index] = job
                jobs[index] = JobStatus(job: job, number: index + 1)
            }
            // A file the server names has no name to look at yet.
            let existing = job.namedByServer ? nil : FileState(at: job.file)
            existingFiles.append(existing)
            savedEarlier.append(
                (plan.existingFiles.trustsEarlierRuns || plan.writesToStandardOutput)
                    && savedFiles.savedEarlier(job.url, at: job.file, state: existing))
            // What an earlier run left for the file; one another dl has now makes the download
            // below fail, naming that dl.
            var kept: Int64 = 0
            if !job.namedByServer, let earlier = try? await manager.unfinishedDownload(to: job.file) {
                await reconcile(earlier, with: job)
                // Read before it runs again (the download below is this one, joined).
                kept = earlier.state == .cancelled ? 0 : earlier.currentProgress.bytesReceived
            }
            jobs[index].keptBeforeThisRun = kept
            let download = await manager.download(request(for: job, savedEarlier: savedEarlier[index]))
            downloads.append(download)
            if plan.writesToStandardOutput {
                standardOutput = makeStandardOutput(for: download, keptBytes: kept, continuation: continuation)
            }
            tasks.append(
                Task {
                    for await event in download.events { continuation.yield(.event(index, event)) }
                })
            tasks.append(
                Task {
                    for await progress in download.progress { continuation.yield(.progress(index, progress)) }
                })
        }
        self.savedFiles = savedFiles
        tasks.append(
            Task {
                while (try? await Task.sleep(for: Self.tickInterval)) != nil { continuation.yield(.tick) }
            })

        var interrupted = false
        updates: for await update in updates {
            let time = clock.now - start
            switch update {
            case .event(let index, let event):
                await handle(event, of: index, at: time)
            case .progress(let index, let progress):
                standardOutput?.advance(to: progress.bytesReceived)
                jobs[index].update(progress)
                jobs[index].measureSpeed(at: time)
                Terminal.write(reporter.refresh(jobs, at: time), output: reports)
            case .tick:
                standardOutput?.advance(to: downloads[0].currentProgress.bytesReceived)
                await endOverdueDownloads(at: time)
                for index in jobs.indices { jobs[index].measureSpeed(at: time) }
                self.savedFiles?.save()
                Terminal.write(reporter.refresh(jobs, at: time), output: reports)
            case .resize:
                let size = Terminal.size(of: reports, environment: environment)
                reporter.resize(width: size.width, height: size.height)
            case .interrupt:
                interrupted = true
                break updates
            case .standardOutputEnded(let failure):
                await standardOutputEnded(failure, at: time)
            case .outputClosed:
                await endForClosedOutput(manager)
            }
            if jobs.allSatisfy(\.isFinished) { break }
        }
        if interrupted {
            await pauseAll()
            await standardOutput?.drain(upTo: downloads[0].currentProgress.bytesReceived)
        }
        self.savedFiles?.save()
        for task in tasks { task.cancel() }
        // Gives the store up with every record written.
        await manager.invalidate()
        let summary = Summary(jobs, interrupted: interrupted)
        Terminal.write(reporter.finish(jobs, summary: summary, interrupted: interrupted), output: reports)
        for source in signals { source.cancel() }
        return ExitCode.combined([summary.exitCode, saveCookies()])
    }

    /// `-O -`: the file is downloaded into the store (`stdout/NAME`), where the same command
    /// finds it again, and goes to standard output as it comes (see `Session+StandardOutput`).
    private func placeInStore(_ store: URL) {
        let folder = store.appendingPathComponent("stdout", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in plan.jobs.indices {
            plan.jobs[index].file = folder.appendingPathComponent(plan.jobs[index].name, isDirectory: false)
        }
        jobs = plan.jobs.enumerated().map { JobStatus(job: $1, number: $0 + 1) }
    }

    /// Reports `event` of job `index`; `streamed`: an event of the stream to standard output
    /// (`-O -`), not of the download.
    func handle(_ event: DownloadEvent, of index: Int, at time: Duration, streamed: Bool = false) async {
        // Whether the file was there already, before it went to standard output (-O -).
        let wasThere =
            event.fileURL.map { FileState(at: $0) == existingFiles[index] && existingFiles[index] != nil } ?? false
        guard let event = streamed ? event : await self.streamed(event, of: index) else { return }
        var kept: KeptFile?
        if event.fileURL != nil, wasThere {
            kept =
                if savedEarlier[index] {
                    .savedEarlier
                } else {
                    switch plan.existingFiles {
                    case .keep: .exists
                    case .replaceIfChanged: .notModified
                    default:
                        jobs[index].job.digest == nil && plan.continuesExistingFiles ? .complete : .matchesChecksum
                    }
                }
        } else if let file = event.fileURL, !plan.writesToStandardOutput {
            savedFiles?.remember(jobs[index].job.url, savedAt: file)
        }
        if event.state?.isFinished == true {
            // The latest, not the latest published: what is on disk at the end.
            jobs[index].update(downloads[index].currentProgress)
        }
        if event.state == .failed {
            jobs[index].history = downloads[index].history
            // --remove-on-error: the bytes go below; the failure says none are kept.
            if plan.http.removesFailedFiles { jobs[index].progress?.bytesReceived = 0 }
        }
        let occurrences = jobs[index].apply(event, at: time, kept: kept)
        if occurrences.isEmpty {
            Terminal.write(reporter.refresh(jobs, at: time), output: reports)
            return
        }
        for occurrence in occurrences {
            Terminal.write(reporter.report(occurrence, of: jobs[index], among: jobs, at: time), output: reports)
        }
        if case .failed = occurrences.last,
            downloads[index].currentProgress.bytesReceived == 0 || plan.http.removesFailedFiles
        {
            // Nothing to continue from (or --remove-on-error): forget it, so that dl's store keeps
            // no dead records and the file is free for another URL.
            await downloads[index].cancel()
        }
    }

    /// Pauses every download of the run that has not ended; returns once each stopped with its
    /// bytes on disk and its record saved, for the next run to continue.
    private func pauseAll() async {
        let downloads = jobs.indices.filter { !jobs[$0].isFinished }.map { self.downloads[$0] }
        // Those that wait first (queued, or waiting to retry): a running download that stops
        // gives its slot back, and a queued one would take it and start.
        for download in downloads where download.state != .running {
            await download.pause()
        }
        await withTaskGroup(of: Void.self) { group in
            for download in downloads {
                group.addTask { await download.pause() }
            }
        }
        for index in jobs.indices where !jobs[index].isFinished {
            let download = self.downloads[index]
            jobs[index].update(download.currentProgress)
            let time = clock.now - start
            // A download that had all its bytes completes instead of pausing.
            if let end = await Self.end(of: download) {
                await handle(end, of: index, at: time)
            } else {
                let occurrence = jobs[index].pause()
                Terminal.write(reporter.report(occurrence, of: jobs[index], among: jobs, at: time), output: reports)
            }
        }
    }

    /// How `download`, just paused, ended, if it did (all its bytes had come): completed, or
    /// failed for good; nil when it paused.
    static func end(of download: Download) async -> DownloadEvent? {
        switch download.state {
        case .completed, .failed:
            do {
                return .completed(try await download.fileURL)
            } catch {
                return .failed(error as? DownloadError ?? DownloadError(.cancelled, reason: "\(error)"))
            }
        default:
            return nil
        }
    }

    /// Ctrl-C pauses everything (see ``pauseAll()``); a second one exits at once. A change of
    /// the terminal's size redraws the block to the new width.
    private func handleSignals(_ continuation: AsyncStream<Update>.Continuation) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "dl.signals")
        let count = InterruptCount()
        let abandonment = reporter.abandonment
        let reports = reports
        // Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) all pause and save: the
        // terminal is given back as it was, and the same command continues.
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: number, queue: queue)
            interrupt.setEventHandler {
                if count.increment() == 1 {
                    continuation.yield(.interrupt)
                } else {
                    Terminal.write(abandonment, to: reports)
                    exit(ExitCode.interrupted.rawValue)
                }
            }
            interrupt.resume()
            sources.append(interrupt)
        }
        guard isTerminal else { return sources }
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
        resize.setEventHandler { continuation.yield(.resize) }
        resize.resume()
        return sources + [resize]
    }
}

/// How many times Ctrl-C was pressed.
private final class InterruptCount: @unchecked Sendable {
    // Safe: only the signal source's handler touches it, on one serial queue.
    private var count = 0

    func increment() -> Int {
        count += 1
        return count
    }
}

/// What tells one file from another at the same path: a file that is still the one that was
/// there before a download was kept, not written.
struct FileState: Equatable, Codable {
    var size: Int64
    var modified: Date?
    var fileNumber: UInt64

    init?(at url: URL) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return nil }
        self.size = size
        modified = attributes[.modificationDate] as? Date
        fileNumber = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
