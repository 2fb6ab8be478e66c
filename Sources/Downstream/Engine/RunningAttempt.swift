/// A request of a download in flight, whichever engine runs it.
protocol AttemptTransfer: AnyObject, Sendable {
    /// Stops the request; `keepingResumeData` asks the system for resume data when it can give
    /// some. It still reports its end.
    func stop(keepingResumeData: Bool)

    /// Whether the request goes on in the system after the process ended (a system task).
    var outlivesProcess: Bool { get }
}

extension AttemptTransfer {
    var outlivesProcess: Bool { false }
}

extension RangedTransfer: AttemptTransfer {
    func stop(keepingResumeData: Bool) {
        stop()
    }
}

extension SegmentedTransfer: AttemptTransfer {}

extension SystemTransfer: AttemptTransfer {
    var outlivesProcess: Bool { true }
}

/// A download's attempt, from the moment its download hands it to the engines to its end: what
/// the download stops. The engines prepare it on a file-work thread and run one request (or
/// segments, or ranges one after another) at a time in it; a stop that comes before a request
/// was sent stops the next one before it starts.
final class RunningAttempt: Sendable {
    private struct State {
        /// The request running now; nil while the engine prepares the next one.
        var transfer: (any AttemptTransfer)?
        /// Whether the download stopped the attempt (before or while a request ran).
        var isStopped = false
    }

    private let state: Locked<State>

    /// An attempt about to be prepared, or one that runs `transfer` already (a system task
    /// adopted after a relaunch).
    init(running transfer: (any AttemptTransfer)? = nil) {
        state = Locked(State(transfer: transfer))
    }

    /// Runs `transfer` as the attempt's request, then calls `start`; returns false without
    /// calling it when the download stopped the attempt already. A stop from then on reaches
    /// `transfer` (which then ends as stopped, even before `start` ran).
    func launch(_ transfer: any AttemptTransfer, start: () -> Void) -> Bool {
        let launched = state.withLock { state in
            guard !state.isStopped else { return false }
            state.transfer = transfer
            return true
        }
        if launched { start() }
        return launched
    }

    /// The attempt's request ended, and another may follow.
    func requestEnded() {
        state.withLock { $0.transfer = nil }
    }

    /// Stops the attempt: its request, or the next before it starts.
    func stop(keepingResumeData: Bool) {
        let transfer = state.withLock { state in
            state.isStopped = true
            return state.transfer
        }
        transfer?.stop(keepingResumeData: keepingResumeData)
    }

    /// Whether the download stopped the attempt.
    var isStopped: Bool {
        state.withLock { $0.isStopped }
    }

    /// Whether `transfer` is the attempt's request now.
    func runs(_ transfer: AnyObject) -> Bool {
        state.withLock { $0.transfer === transfer }
    }

    /// Whether the attempt's request goes on in the system after the process ended (a system
    /// task).
    var outlivesProcess: Bool {
        state.withLock { $0.transfer?.outlivesProcess ?? false }
    }
}
