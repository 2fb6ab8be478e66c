import Downstream
import Foundation

/// Something worth telling about a download `dl` started.
enum Occurrence: Equatable {
    /// Its first request went out.
    case started
    /// The server accepted a range: it continues from `offset` bytes kept.
    case resumed(at: Int64)
    /// The bytes kept were discarded: it starts again from the first byte.
    case restarted
    /// A transient failure: it tries again in `delay`.
    case retrying(in: Duration, after: DownloadError)
    /// There is no network: it waits for it.
    case waitingForNetwork(after: DownloadError)
    /// It takes its file from `url` now (a mirror), instead of `previous`, which failed with
    /// `error` (nil when the URL was changed, not given up).
    case switchedURL(URL, from: URL, after: DownloadError?)
    /// The file is at `path`; `kept` says why no new file was written, if none was.
    case saved(URL, kept: KeptFile?)
    case failed(DownloadError)
    /// Ctrl-C paused it; its bytes are kept for the next run.
    case paused
}

/// Why a download completed with the file that was there already.
enum KeptFile: Equatable {
    /// `--no-clobber`.
    case exists
    /// `--timestamping`: the server's file did not change.
    case notModified
    /// It has the expected checksum.
    case matchesChecksum
    /// An earlier run of dl saved it, and it is unchanged (a rerun of the same command).
    case savedEarlier
    /// `-c`: it is as long as the server's file, and ends with the server's bytes.
    case complete
}

/// Where one of `dl`'s downloads is, as its events and progress tell it: the model every
/// output renders.
struct JobStatus {
    enum Phase: Equatable {
        case queued
        case running
        /// Waiting to try again, until `until` (time since the run started).
        case retrying(until: Duration)
        case waitingForNetwork
        case saved(URL, kept: KeptFile?)
        case failed(DownloadError)
        case paused
    }

    let job: Job
    /// Its number among the run's downloads, from 1 (the `id` of JSON lines).
    let number: Int
    var phase = Phase.queued
    var progress: DownloadProgress?
    /// Its speed over the last seconds, which falls to 0 in a stall (``measureSpeed(at:)``).
    var speed = SpeedWindow()
    /// Its last events, read when it failed (see `Download.history`).
    var history: [DownloadHistoryEntry] = []
    var hasStarted = false
    /// When it started running in this run (since the run started), and the bytes it had then.
    var startedAt: Duration?
    var bytesAtStart: Int64 = 0
    /// The bytes an earlier run kept for it, read before it ran in this run: those it has when it
    /// starts, unless it says it resumed from others. (Not its progress when the start is told:
    /// progress and events come apart, and a fast file's bytes may be counted before its start.)
    var keptBeforeThisRun: Int64 = 0
    /// When it was saved.
    var savedAt: Duration?
    /// The URL it uses now.
    private var currentURL: URL
    /// A switch to another URL not told yet: the library tells the switch, then the failure of
    /// the URL it left (a retry at once); dl tells both in one line.
    private var pendingSwitch: (to: URL, from: URL)?

    init(job: Job, number: Int) {
        self.job = job
        self.number = number
        currentURL = job.url
    }

    var isFinished: Bool {
        switch phase {
        case .saved, .failed, .paused: true
        default: false
        }
    }

    /// Running, or waiting to run again: shown live.
    var isActive: Bool {
        switch phase {
        case .running, .retrying, .waitingForNetwork: true
        default: false
        }
    }

    /// The error it failed with.
    var error: DownloadError? {
        if case .failed(let error) = phase { error } else { nil }
    }

    /// Takes `event` in, at `time` since the run started; returns what to tell about it.
    /// `kept` says, for a completion, whether the file was there already.
    mutating func apply(_ event: DownloadEvent, at time: Duration, kept: KeptFile? = nil) -> [Occurrence] {
        // A download ends once for dl: it resumes nothing that ended.
        guard !isFinished else { return [] }
        if let url = event.url {
            let earlier = takePendingSwitch(after: nil)
            pendingSwitch = (to: url, from: currentURL)
            currentURL = url
            return earlier
        }
        if pendingSwitch != nil, event.state == .waitingToRetry, (event.retryDelay ?? .zero) == .zero,
            let error = event.error
        {
            // The URL left failed: tried again at once, from the new one.
            phase = .retrying(until: time)
            return takePendingSwitch(after: error)
        }
        let switched = takePendingSwitch(after: nil)
        return switched + (occurrence(of: event, at: time, kept: kept).map { [$0] } ?? [])
    }

    private mutating func takePendingSwitch(after error: DownloadError?) -> [Occurrence] {
        guard let pending = pendingSwitch else { return [] }
        pendingSwitch = nil
        return [.switchedURL(pending.to, from: pending.from, after: error)]
    }

    private mutating func occurrence(of event: DownloadEvent, at time: Duration, kept: KeptFile?) -> Occurrence? {
        if let file = event.fileURL {
            phase = .saved(file, kept: kept)
            savedAt = time
            if let expected = progress?.expectedBytes {
                progress?.bytesReceived = expected
            }
            return .saved(file, kept: kept)
        }
        if let offset = event.resumeOffset {
            bytesAtStart = offset
            return .resumed(at: offset)
        }
        switch event.state {
        case .running?:
            phase = .running
            guard !hasStarted else { return nil }
            hasStarted = true
            startedAt = time
            bytesAtStart = keptBeforeThisRun
            return .started
        case .queued?:
            phase = .queued
            return nil
        case .waitingToRetry?:
            let delay = event.retryDelay ?? .zero
            phase = .retrying(until: time + delay)
            return event.error.map { .retrying(in: delay, after: $0) }
        case .waitingForNetwork?:
            phase = .waitingForNetwork
            return event.error.map { .waitingForNetwork(after: $0) }
        case .failed?:
            guard let error = event.error else { return nil }
            phase = .failed(error)
            return .failed(error)
        case .cancelled?:
            let cancelled = DownloadError(.cancelled, reason: "by request")
            phase = .failed(cancelled)
            return .failed(cancelled)
        default:
            // `paused` comes from a download restored from the store before dl resumed it, and
            // from dl's own pause on Ctrl-C, which says so itself; `restarted` has no state.
            guard event == .restarted else { return nil }
            // Nothing kept counts: this run receives the whole file.
            bytesAtStart = 0
            return .restarted
        }
    }

    /// What it received in this run, in how long and how fast, once saved after running in this
    /// run: from its start (or the bytes kept it resumed from) to its save.
    var thisRun: (bytes: Int64, time: Duration, bytesPerSecond: Double)? {
        guard let startedAt, let savedAt, savedAt > startedAt else { return nil }
        let time = savedAt - startedAt
        let bytes = max(0, (progress?.bytesReceived ?? 0) - bytesAtStart)
        return (bytes, time, Double(bytes) / Format.seconds(time))
    }

    /// Ctrl-C paused it.
    mutating func pause() -> Occurrence {
        phase = .paused
        return .paused
    }

    mutating func update(_ progress: DownloadProgress) {
        self.progress = progress
    }
}

/// What a whole run did, for the last line.
struct Summary: Equatable {
    var saved = 0
    var failed = 0
    var paused = 0
    var exitCode = ExitCode.success

    var count: Int { saved + failed + paused }

    init(_ jobs: [JobStatus], interrupted: Bool) {
        var codes: [ExitCode] = []
        for job in jobs {
            switch job.phase {
            case .saved: saved += 1
            case .failed(let error):
                failed += 1
                codes.append(.failure(error))
            default: paused += 1
            }
        }
        exitCode = interrupted ? .interrupted : ExitCode.combined(codes)
    }
}

/// The totals of a run's downloads, for the total line.
struct Totals: Equatable {
    var finished = 0
    var count = 0
    var queued = 0
    var bytesReceived: Int64 = 0
    /// The sum of the lengths, when every download that has not failed knows its own.
    var expectedBytes: Int64?
    var bytesPerSecond: Double = 0

    init(_ jobs: [JobStatus]) {
        count = jobs.count
        var expected: Int64? = 0
        for job in jobs {
            if job.isFinished { finished += 1 }
            if job.phase == .queued { queued += 1 }
            if job.error != nil { continue }
            let received = job.progress?.bytesReceived ?? 0
            bytesReceived += received
            if case .saved = job.phase {
                // Done: whatever it received is its length (nothing, for a file kept).
                expected = expected.map { $0 + received }
            } else if let length = job.progress?.expectedBytes, let sum = expected {
                expected = sum + length
            } else {
                expected = nil
            }
            if job.isActive { bytesPerSecond += job.progress?.bytesPerSecond ?? 0 }
        }
        expectedBytes = expected
    }

    var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        return expectedBytes > 0 ? min(1, Double(bytesReceived) / Double(expectedBytes)) : 1
    }

    /// The time to receive the rest at the current speed.
    var estimatedTimeRemaining: Duration? {
        guard let expectedBytes, bytesPerSecond > 0 else { return nil }
        return .seconds(Double(max(0, expectedBytes - bytesReceived)) / bytesPerSecond)
    }
}
