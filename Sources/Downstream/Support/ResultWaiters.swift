/// Tasks waiting for the result of a run, with cancellation-safe waits.
///
/// A result, once set, is handed to every current and later waiter until ``reset()`` starts a new
/// run. A waiter whose task is cancelled stops waiting (it throws `CancellationError`) without
/// affecting the run or the other waiters, also when the cancellation comes before it parked.
struct ResultWaiters<Success: Sendable, Failure: Error>: Sendable {
    typealias Outcome = Result<Success, Failure>

    private enum Waiter {
        case cancellable(CheckedContinuation<Success, any Error>)
        case uncancellable(CheckedContinuation<Outcome, Never>)

        func resume(with outcome: Outcome) {
            switch self {
            case .cancellable(let continuation): continuation.resume(with: outcome.mapError { $0 })
            case .uncancellable(let continuation): continuation.resume(returning: outcome)
            }
        }
    }

    private struct State {
        var outcome: Outcome?
        var waiters: [Int: Waiter] = [:]
        var cancelledBeforeParking: Set<Int> = []
        var nextID = 0

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }

    private let state = Locked(State())

    /// The result of the current run, if it has one.
    var outcome: Outcome? {
        state.withLock { $0.outcome }
    }

    /// Waits for the result. Throws the run's failure, or `CancellationError` if the
    /// calling task is cancelled first.
    func wait() async throws -> Success {
        let id = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = Waiter.cancellable(continuation)
                let immediate: Outcome?? = state.withLock { state in
                    if let outcome = state.outcome { return .some(outcome) }
                    if state.cancelledBeforeParking.remove(id) != nil { return .some(nil) }
                    state.waiters[id] = waiter
                    return nil
                }
                switch immediate {
                case .none: break
                case .some(.some(let outcome)): waiter.resume(with: outcome)
                case .some(.none): continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil, state.outcome == nil {
                    state.cancelledBeforeParking.insert(id)
                }
                return waiter
            }
            if case .cancellable(let continuation) = waiter {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Waits for the result whatever happens to the calling task.
    func waitIgnoringCancellation() async -> Outcome {
        await withCheckedContinuation { continuation in
            let outcome: Outcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiters[state.makeID()] = .uncancellable(continuation)
                return nil
            }
            if let outcome {
                continuation.resume(returning: outcome)
            }
        }
    }

    /// Sets the result of the run and wakes every waiter.
    func resolve(_ outcome: Outcome) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            state.cancelledBeforeParking = []
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(with: outcome)
        }
    }

    /// Starts a new run: later waiters wait for its result.
    func reset() {
        state.withLock { $0.outcome = nil }
    }
}
