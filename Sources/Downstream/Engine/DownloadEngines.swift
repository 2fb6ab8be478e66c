import Foundation

/// What runs an attempt of a download: the ranged, segmented and system engines sit behind it.
protocol AttemptEngine: Sendable {
    /// Prepares `attempt` on the calling file-work thread (it may read and write the download's
    /// files), then sends its request through `running` (``RunningAttempt/launch(_:start:)``),
    /// and reports how the attempt ended to `onEnd`, once.
    func run(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void)
}

/// A manager's engines: the ranged transport, and the system-task engine when the manager has a
/// (background) system session. A download hands each attempt to ``run(_:of:onEnd:)`` and gets
/// back one ``AttemptEnd``; it knows no engine.
struct DownloadEngines: Sendable {
    /// The transport of the ranged and segmented engines.
    var ranged: any Transport
    var system: SystemEngine?
    /// When attempts run on the system engine (see ``SystemUse``).
    var systemUse = SystemUse(policy: .always)

    /// Waits until the system session's tasks of an earlier process have been adopted, so
    /// that a download never starts a second task beside its first.
    func waitUntilReady() async {
        if let system, !system.ready.isOpen {
            await system.ready.wait()
        }
    }

    /// A download finished with the file of an attempt whose end held background work
    /// (``AttemptEnd/holdsBackgroundWork``): the system's batch of background events may end.
    func backgroundWorkEnded() {
        system?.router.backgroundEvents.workEnded()
    }

    /// Runs `attempt` on a file-work thread: looks at the destination first for the first attempt
    /// of a run (``DestinationCheck``), chooses its engine (``EngineChoice``) and starts it.
    /// A range that ended where it was meant to, with bytes written, is followed by the next
    /// (chosen again: the first range may show the file can come in segments) in the same
    /// attempt, until the attempt ends otherwise, is stopped, or is let go of (the download keeps
    /// the handle returned while the attempt runs). `onEnd` hears the attempt's end once.
    func run(
        _ attempt: Attempt, of target: AttemptTarget, onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) -> RunningAttempt {
        let running = RunningAttempt()
        guard let adaptHeaders = target.adaptHeaders else {
            start(attempt, of: target, in: running, onEnd: onEnd)
            return running
        }
        // The app's headers first, then the attempt as without them. A pause meanwhile ends it
        // when it launches its request.
        Task {
            switch await adaptHeaders(attempt.url) {
            case .success(let headers):
                var adapted = attempt
                adapted.adaptedHeaders = headers
                start(adapted, of: target, in: running, onEnd: onEnd)
            case .failure(let error):
                onEnd(.notSent(error))
            }
        }
        return running
    }

    /// Starts `attempt` on a file-work thread.
    private func start(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        FileWork.run {
            var target = target
            target.destinationPaths = target.request.destination.paths
            guard attempt.kind == .first || Self.mayContinueExistingFile(attempt, of: target) else {
                return step(attempt, of: target, in: running, onEnd: onEnd)
            }
            checkDestination(attempt, of: target, in: running, onEnd: onEnd)
        }
    }

    /// What the file at the destination means for the first attempt of a run: its end (the file
    /// is the download's, or may not be replaced), or a request for the file only if it changed.
    private func checkDestination(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        let check = DestinationCheck(
            request: target.request, recordFile: target.recordFile, partialPath: target.partialPath,
            deliveredCopies: target.deliveredCopies, destinationPaths: target.paths)
        switch check.run() {
        case nil:
            step(attempt, of: target, in: running, onEnd: onEnd)
        case .current(let url):
            Self.forgetPartial(of: target)
            onEnd(AttemptEnd(transferEnd: .destinationIsCurrent(url)))
        case .conflict(let error):
            if !error.isResumable {
                // Nothing was downloaded: nothing to keep, no record to leave behind.
                target.recordFile.remove()
            }
            onEnd(AttemptEnd(transferEnd: .failed(error)))
        case .conditional(let copy):
            var conditional = attempt
            conditional.existingCopy = copy
            step(conditional, of: target, in: running, onEnd: onEnd)
        case .continuation(let file):
            var continuing = attempt
            continuing.existingFile = file
            step(continuing, of: target, in: running, onEnd: onEnd)
        }
    }

    /// Whether a continuation of the run (after a challenge was answered, or an empty range) looks
    /// at the destination again: a file there that the download may continue is still not its own
    /// until a response matched its last bytes.
    private static func mayContinueExistingFile(_ attempt: Attempt, of target: AttemptTarget) -> Bool {
        attempt.kind == .continuation && target.request.destination.conflictPolicy == .continueExisting
    }

    /// The file at the destination is the download's already: no record and no partial file are
    /// left behind.
    private static func forgetPartial(of target: AttemptTarget) {
        target.recordFile.remove()
        POSIXFile.removeOwnFile(atPath: target.partialPath)
    }

    /// The facts the engine of `attempt` is chosen on. Reads the partial file's length when the
    /// choice depends on it (a record that may be continued, with a known length or a system
    /// session to choose).
    func facts(for attempt: Attempt, of target: AttemptTarget) -> EngineChoice.Facts {
        // The resume record alone: a queued download's record is not made whole for it.
        let resume = target.recordFile.resume(startingOverFrom: attempt.url)
        let (connections, minimumSegmentSize) = target.segmentation
        let session = system?.router.session
        let needsLength = resume.isResumable && (resume.expectedLength != nil || session != nil)
        return EngineChoice.Facts(
            kind: attempt.kind, url: attempt.url, record: resume,
            hasSystemResumeData: target.recordFile.hasSystemResumeData,
            fileLength: needsLength ? POSIXFile.length(atPath: target.partialPath) ?? 0 : 0,
            systemSession: session.flatMap {
                systemUse.ability(for: target.downloadID, supportsResumeData: $0.supportsResumeData)
            },
            continuesExistingFile: attempt.existingFile != nil,
            connections: connections, minimumSegmentSize: minimumSegmentSize, rangesRefused: attempt.rangesRefused)
    }

    private func step(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        let engine: any AttemptEngine =
            switch EngineChoice.choose(facts(for: attempt, of: target)) {
            case .system: system ?? RangedEngine(transport: ranged)
            case .segmented(let map): SegmentedEngine(transport: ranged, map: map)
            case .ranged: RangedEngine(transport: ranged)
            }
        // Weak: a request keeps this closure, and its attempt keeps the request. A system task
        // may never end in this process (it goes on after a shutdown): the attempt, let go of by
        // its download, must not be kept by its own request.
        engine.run(attempt, of: target, in: running) { [weak running] reported in
            var ended = reported
            ended.rangesRefused = reported.rangesRefused || attempt.rangesRefused
            let attemptEnd = ended
            guard let running else { return onEnd(attemptEnd) }
            running.requestEnded()
            switch attemptEnd.transferEnd {
            case .incomplete(progressed: true) where !running.isStopped:
                var continuation = attempt
                continuation.kind = .continuation
                continuation.existingCopy = nil
                // A file continued is the partial file now.
                continuation.existingFile = nil
                continuation.rangesRefused = attemptEnd.rangesRefused
                let next = continuation
                FileWork.run { step(next, of: target, in: running, onEnd: onEnd) }
            case .destinationIsCurrent:
                FileWork.run {
                    Self.forgetPartial(of: target)
                    onEnd(attemptEnd)
                }
            case .failed(let error) where attempt.existingFile != nil && !error.allowsResume:
                // The file at the destination was not continued, and nothing was downloaded: no
                // record is left behind (its partial file, if any, is not the download's bytes).
                target.recordFile.remove()
                onEnd(attemptEnd)
            default:
                onEnd(attemptEnd)
            }
        }
    }
}
