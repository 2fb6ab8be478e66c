import Foundation

extension Download {
    /// The life of one download as a value, with what it runs: each input returns its own small
    /// action type (`+Actions`), with only the cases that input can lead to.
    ///
    /// No I/O happens here; ``Download`` performs the actions. Requests (start, pause, resume,
    /// cancel) are accepted in any order and any number of times. A download waits in the queue
    /// until its manager's scheduler gives it a slot (`start`). A running request is stopped
    /// through its engine (a libcurl or URLSession transfer is cancelled, a system task too),
    /// which may take effect late or not at all: until the request reports its end the download is
    /// `stopping` (and keeps its slot), and no second request starts, so two requests never write
    /// the same partial file.
    ///
    /// A run of the download is its life from a start or a resume by request to the moment it
    /// stops (paused, failed, completed, cancelled): its first attempt is of kind
    /// ``AttemptKind/first``, and its counts of automatic requests, retries and challenges are
    /// the run's.
    ///
    /// Each state holds what it owns: a running or stopping attempt the handle of its request
    /// (`AttemptHandle`, given to ``attemptStarted(_:_:)``), a wait its timer (`Wait`, given to
    /// ``timerStarted(_:forRetry:)`` or ``timerStarted(_:forNetworkWait:)``); the machine keeps
    /// the tasks waiting for it to settle (`Waiter`). Leaving a state hands its resources over
    /// in the action, for the download to stop or cancel: nothing the download runs sits beside
    /// the machine, where it could disagree with it. An input that cannot happen in a state stops
    /// the program, naming both.
    ///
    /// Cases of the same name mean the same in every action type:
    /// - `startAttempt(attempt, kind)`: send request number `attempt`, which reports its end to
    ///   ``attemptEnded(_:_:recovery:)``.
    /// - `stopAttempt(attempt, handle:)`: stop that request (it still reports its end).
    /// - `finalize`: check the complete partial file and move it into place, then tell
    ///   ``finalized(_:)``.
    /// - `becomeQueued`: wait in the queue for a slot.
    /// - `becomePaused(savingIntent:)`: stopped; the record says so unless the manager shut down
    ///   (see ``shutDown(requestOutlivesProcess:)``).
    /// - `becomeFailed`, `becomeCancelled`, `becomeCompleted`: the download ended so.
    struct StateMachine<AttemptHandle: Sendable, Wait: Sendable, Waiter: Sendable>: Sendable {
        enum State: Sendable {
            /// Waiting for a slot.
            case queued
            /// Request `attempt` runs, as `handle` once it was given (or ended with a challenge that
            /// the authentication handler is answering, or a failure whose recovery is decided:
            /// then without a run).
            case running(attempt: Int, handle: AttemptHandle?)
            case stopping(attempt: Int, then: AfterStop, handle: AttemptHandle?)
            case paused
            /// A transient failure: waiting for the retry timer `retry`.
            case waitingToRetry(retry: Int, error: DownloadError, timer: Wait?)
            /// No network: waiting for it (wait number `wait`), after `error`.
            case waitingForNetwork(wait: Int, error: DownloadError, timer: Wait?)
            case finalizing
            case failed(DownloadError)
            case completed(URL)
            case cancelled
        }

        typealias AfterStop = Download.AfterStop
        typealias Recovery = Download.Recovery
        typealias SlotNeed = Download.SlotNeed

        /// How many requests a run may send on its own without progress (restarts, continuations
        /// that received nothing, answered challenges) before it gives up.
        static var automaticAttemptLimit: Int { 5 }

        private(set) var state: State
        /// How many challenges the download answers from one start or resume by request to the
        /// next: the authentication settings' maximum, or 0 without an authentication handler.
        let challengeLimit: Int32
        // The counts and numbers in 32 bits, beside the flag: 100,000 downloads may be queued.
        // (Numbers wrap: four billion attempts of one download, in one run, do not happen.)
        private var lastAttempt: Int32 = 0
        private var lastRetry: Int32 = 0
        private var lastNetworkWait: Int32 = 0
        private var automaticAttempts: Int32 = 0
        /// Retries after transient failures since the download last started or resumed by request.
        private(set) var retries: Int32 = 0
        /// Challenges answered since the download last started or resumed by request.
        private(set) var answeredChallenges: Int32 = 0
        /// Whether the download's manager shut down (see ``shutDown(requestOutlivesProcess:)``).
        private(set) var isShutDown = false
        /// The tasks waiting for the download to settle.
        private var settleWaiters: [Waiter] = []

        /// A machine in `state`: `.queued` for a new download, `.paused` for one restored from the
        /// store.
        init(state: State = .queued, challengeLimit: Int = 0) {
            self.state = state
            self.challengeLimit = Int32(clamping: challengeLimit)
        }

        // MARK: - Resources

        /// Request `attempt`, which the machine asked for (``StartAction/startAttempt(_:)`` and
        /// the like) or adopted, runs as `handle` now. The download gives it in the same turn as
        /// the action: any state but that attempt running without a request is impossible.
        mutating func attemptStarted(_ attempt: Int, _ handle: AttemptHandle) {
            guard case .running(attempt, nil) = state else {
                preconditionFailure("the download machine got `attemptStarted(\(attempt))` in state \(phase)")
            }
            state = .running(attempt: attempt, handle: handle)
        }

        /// The timer of the retry `retry`, which the machine asked for
        /// (``AttemptEndedAction/scheduleRetry(_:after:error:)``), runs as `timer`: given in
        /// the same turn as the action, so any other state is impossible.
        mutating func timerStarted(_ timer: Wait, forRetry retry: Int) {
            guard case .waitingToRetry(retry, let error, nil) = state else {
                preconditionFailure("the download machine got `timerStarted(forRetry: \(retry))` in state \(phase)")
            }
            state = .waitingToRetry(retry: retry, error: error, timer: timer)
        }

        /// The wait for the network number `wait` runs as `timer`: given in the same turn as
        /// the action (``AttemptEndedAction/waitForNetwork(_:error:)``), so any other state is
        /// impossible.
        mutating func timerStarted(_ timer: Wait, forNetworkWait wait: Int) {
            guard case .waitingForNetwork(wait, let error, nil) = state else {
                preconditionFailure(
                    "the download machine got `timerStarted(forNetworkWait: \(wait))` in state \(phase)")
            }
            state = .waitingForNetwork(wait: wait, error: error, timer: timer)
        }

        /// A task waits for the download to settle: kept until it has; returned to be resumed at
        /// once if it has.
        mutating func awaitSettling(_ waiter: Waiter) -> Waiter? {
            guard !isSettled else { return waiter }
            settleWaiters.append(waiter)
            return nil
        }

        /// The tasks to resume once the download settled (none before).
        mutating func settledWaiters() -> [Waiter] {
            guard isSettled, !settleWaiters.isEmpty else { return [] }
            defer { settleWaiters = [] }
            return settleWaiters
        }

        // MARK: - Requests

        /// The scheduler gave the download a slot.
        mutating func start() -> StartAction {
            guard case .queued = state else { return .none }
            return .startAttempt(nextAttempt())
        }

        mutating func pause() -> PauseAction {
            switch state {
            case .queued:
                state = .paused
                return .becomePaused(savingIntent: !isShutDown)
            case .waitingToRetry(_, _, let timer), .waitingForNetwork(_, _, let timer):
                state = .paused
                return .becomePaused(savingIntent: !isShutDown, cancelling: timer)
            case .running(let attempt, let handle):
                state = .stopping(attempt: attempt, then: .pause, handle: handle)
                return .stopAttempt(attempt, handle: handle)
            case .stopping(let attempt, .resume, let handle), .stopping(let attempt, .requeue, let handle),
                .stopping(let attempt, .waitForNetwork, let handle):
                state = .stopping(attempt: attempt, then: .pause, handle: handle)
                return .none
            case .stopping, .paused, .finalizing, .failed, .completed, .cancelled:
                return .none
            }
        }

        /// Queues a paused or failed download again (or retries a waiting one at once). The
        /// retries, automatic requests and answered challenges count from 0 again.
        mutating func resume() -> ResumeAction {
            switch state {
            case .paused:
                resetCountsOnRequest()
                state = .queued
                return .becomeQueued(reopening: false)
            case .waitingToRetry(_, _, let timer), .waitingForNetwork(_, _, let timer):
                resetCountsOnRequest()
                state = .queued
                return .becomeQueued(reopening: false, cancelling: timer)
            case .failed(let error):
                guard error.allowsResume else { return .none }
                resetCountsOnRequest()
                state = .queued
                return .becomeQueued(reopening: true)
            case .stopping(let attempt, .pause, let handle), .stopping(let attempt, .requeue, let handle):
                resetCountsOnRequest()
                state = .stopping(attempt: attempt, then: .resume, handle: handle)
                return .none
            case .queued, .running, .stopping, .finalizing, .completed, .cancelled:
                return .none
            }
        }

        /// The limits shrank: a running download gives its slot back and waits in the queue.
        mutating func preempt() -> PreemptAction {
            switch state {
            case .running(let attempt, let handle):
                state = .stopping(attempt: attempt, then: .requeue, handle: handle)
                return .stopAttempt(attempt, handle: handle)
            case .stopping(let attempt, .resume, let handle):
                state = .stopping(attempt: attempt, then: .requeue, handle: handle)
                return .none
            case .stopping(_, .pause, _), .stopping(_, .requeue, _), .stopping(_, .cancel, _),
                .stopping(_, .waitForNetwork, _):
                // Stopping for a reason of its own already, which gives the slot back too.
                return .none
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
                // No slot to give back (a finalizing download gave its own back when its transfer ended).
                return .none
            }
        }

        /// The download's network access forbids the network there is (`error` says which policy):
        /// a download given a slot, or running, waits for an allowed network instead, without
        /// spending a retry, and continues from its bytes.
        mutating func networkRefused(_ error: DownloadError) -> NetworkRefusedAction {
            switch state {
            case .queued:
                return .waitForNetwork(beginNetworkWait(after: error), error: error)
            case .running(let attempt, let handle), .stopping(let attempt, .resume, let handle):
                state = .stopping(attempt: attempt, then: .waitForNetwork(error), handle: handle)
                return .stopAttempt(attempt, handle: handle)
            case .stopping, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
                return .none
            }
        }

        mutating func cancel(keepingPartialData keep: Bool) -> CancelAction {
            switch state {
            case .queued, .paused, .failed:
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case .waitingToRetry(_, _, let timer), .waitingForNetwork(_, _, let timer):
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep, cancelling: timer)
            case .running(let attempt, let handle):
                state = .stopping(attempt: attempt, then: .cancel(keepingPartialData: keep), handle: handle)
                return .stopAttempt(attempt, keepingPartialData: keep, handle: handle)
            case .stopping(let attempt, _, let handle):
                state = .stopping(attempt: attempt, then: .cancel(keepingPartialData: keep), handle: handle)
                return .none
            case .finalizing, .completed, .cancelled:
                return .none
            }
        }

        /// The manager shuts down, as if the process ended: the download stops as a pause stops
        /// it, but its record keeps the intent it had (a download that was running counts as
        /// interrupted at the next launch), now and at every later pause.
        ///
        /// - Parameter requestOutlivesProcess: whether the running request is a system task, which
        ///   goes on in the system for the next manager to adopt: nothing stops then.
        mutating func shutDown(requestOutlivesProcess: Bool) -> ShutDownAction {
            isShutDown = true
            guard !requestOutlivesProcess else { return .none }
            switch pause() {
            case .none: return .none
            case .becomePaused(_, let timer): return .becomePaused(cancelling: timer)
            case .stopAttempt(let attempt, let handle): return .stopAttempt(attempt, handle: handle)
            }
        }

        /// The download is to take its file from another URL: a running request stops, and the
        /// next one continues from the bytes on disk; a download between requests uses it for the
        /// next one. A download that completed, was cancelled, or is moving its complete file into
        /// place refuses it.
        mutating func urlChanged() -> URLChangedAction {
            switch state {
            case .running(let attempt, let handle):
                state = .stopping(attempt: attempt, then: .resume, handle: handle)
                return .stopAttempt(attempt, handle: handle)
            case .queued, .stopping, .paused, .waitingToRetry, .waitingForNetwork, .failed:
                return .none
            case .finalizing, .completed, .cancelled:
                return .refuse
            }
        }

        /// The running request is to move to another engine (the app left the foreground, and the
        /// manager hands its downloads to the system): it stops, and the next one continues from
        /// the bytes on disk, as after a change of URL. Anything but a running request stays.
        mutating func requestMoves() -> URLChangedAction {
            guard case .running(_, _?) = state else { return .none }
            return urlChanged()
        }

        /// Takes on a request this process did not start (a system task found after a relaunch).
        mutating func adopt() -> AdoptAction {
            switch state {
            case .queued, .paused, .failed:
                automaticAttempts = 0
                return .adopt(nextAttempt())
            case .waitingToRetry(_, _, let timer), .waitingForNetwork(_, _, let timer):
                // The task of the earlier process is the next request: the wait is over.
                automaticAttempts = 0
                return .adopt(nextAttempt(), cancelling: timer)
            case .running, .stopping, .finalizing, .completed, .cancelled:
                return .decline
            }
        }

        // MARK: - Ends of requests and waits

        /// Request `attempt` ended.
        ///
        /// A challenge is answered up to `challengeLimit` times from one start or resume by
        /// request to the next; beyond, or without a handler, the download fails with its status.
        /// - Parameter recovery: for a failure, how the download recovers from it.
        mutating func attemptEnded(
            _ attempt: Int, _ end: TransferEnd, recovery: Recovery = .none
        ) -> AttemptEndedAction {
            switch state {
            case .running(attempt, _):
                state = .running(attempt: attempt, handle: nil)
                return runningAttemptEnded(attempt, end, recovery: recovery)
            case .stopping(attempt, let then, _):
                return stoppingAttemptEnded(end, then: then)
            case .running, .stopping:
                // The end of an earlier request, which came after a newer one started: stale.
                return .none
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
                // The end of a request the download no longer waits for (it was stopped, or it
                // ended otherwise): nothing to do.
                return .none
            }
        }

        private mutating func runningAttemptEnded(
            _ attempt: Int, _ end: TransferEnd, recovery: Recovery
        ) -> AttemptEndedAction {
            switch end {
            case .finished:
                state = .finalizing
                return .finalize
            case .destinationIsCurrent(let url):
                state = .completed(url)
                return .becomeCompleted(url)
            case .incomplete(progressed: true):
                return .startAttempt(nextAttempt(), .continuation)
            case .incomplete(progressed: false), .restart:
                let (kind, reason): (AttemptKind, String) =
                    if case .restart(let reason) = end { (.restart, reason) } else { (.continuation, "empty ranges") }
                switch automaticAttempt(reason: reason) {
                case .success(let next): return .startAttempt(next, kind)
                case .failure(let error): return .becomeFailed(error)
                }
            case .challenged(let challenge):
                guard answersChallenges else { return .becomeFailed(fail(.httpStatus(challenge.response.statusCode))) }
                // The download stays running while the handler answers: a pause then waits for
                // the answer, as for the end of a request.
                answeredChallenges += 1
                return .answerChallenge(attempt, challenge)
            case .cancelled:
                // Only stopping requests are cancelled by us: something else cancelled the task.
                return .becomeFailed(fail(.network(.cancelled, reason: "the request was cancelled by the system")))
            case .stoppedBySystem:
                // Not a failure: the system will let it go on when asked (a force quit, say).
                state = .paused
                return .becomePaused(savingIntent: true)
            case .failed(let error):
                switch recovery {
                case .none:
                    return .becomeFailed(fail(error))
                case .retry(let delay):
                    retries += 1
                    return waitToRetry(after: delay, error: error)
                case .switchURL:
                    retries = 0
                    automaticAttempts = 0
                    return waitToRetry(after: .zero, error: error)
                case .waitForNetwork:
                    return .waitForNetwork(beginNetworkWait(after: error), error: error)
                }
            }
        }

        private mutating func waitToRetry(after delay: Duration, error: DownloadError) -> AttemptEndedAction {
            lastRetry &+= 1
            state = .waitingToRetry(retry: Int(lastRetry), error: error, timer: nil)
            return .scheduleRetry(Int(lastRetry), after: delay, error: error)
        }

        private mutating func stoppingAttemptEnded(_ end: TransferEnd, then: AfterStop) -> AttemptEndedAction {
            switch (then, end) {
            case (.cancel(let keep), _):
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case (_, .finished):
                // The stop came too late: every byte is on disk, so deliver the file.
                state = .finalizing
                return .finalize
            case (_, .destinationIsCurrent(let url)):
                state = .completed(url)
                return .becomeCompleted(url)
            case (.pause, _):
                state = .paused
                return .becomePaused(savingIntent: !isShutDown)
            case (.requeue, _):
                state = .queued
                return .becomeQueued
            case (.waitForNetwork(let error), _):
                return .waitForNetwork(beginNetworkWait(after: error), error: error)
            case (.resume, .restart):
                return .startAttempt(nextAttempt(), .restart)
            case (.resume, _):
                return .startAttempt(nextAttempt(), .first)
            }
        }

        /// A step of request `attempt` taken off the machine finished: a failure whose recovery is
        /// to be decided, the existing file checked, a fresh URL asked for. The step goes on while
        /// the attempt runs (its request, if it had one, ended); otherwise the attempt ends with
        /// `end`, as the end of a stopped request.
        mutating func stepFinished(_ attempt: Int, otherwise end: TransferEnd) -> ProceedAction {
            guard case .running(attempt, _) = state else { return .ended(attemptEnded(attempt, end)) }
            state = .running(attempt: attempt, handle: nil)
            return .proceed
        }

        /// The authentication handler answered `challenge`, which ended request `attempt`: with
        /// credentials (no `refusal`) the next request sends them, without them the download
        /// fails with `refusal` (the challenge's status, say). A download paused, preempted, moved
        /// to another URL or cancelled meanwhile does that instead.
        mutating func challengeAnswered(
            _ attempt: Int, _ challenge: AuthenticationChallenge, refusal: DownloadError?
        ) -> ChallengeAnsweredAction {
            switch state {
            case .running(attempt, _):
                if let refusal { return .becomeFailed(fail(refusal)) }
                switch automaticAttempt(reason: "empty ranges") {
                case .success(let next): return .startAttempt(next, .continuation)
                case .failure(let error): return .becomeFailed(error)
                }
            case .stopping(attempt, .cancel(let keep), _):
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case .stopping(attempt, .pause, _):
                state = .paused
                return .becomePaused(savingIntent: !isShutDown)
            case .stopping(attempt, .requeue, _):
                state = .queued
                return .becomeQueued
            case .stopping(attempt, .waitForNetwork(let error), _):
                return .waitForNetwork(beginNetworkWait(after: error), error: error)
            case .stopping(attempt, .resume, _):
                return .startAttempt(nextAttempt(), .first)
            case .running, .stopping:
                // The answer to an earlier request's challenge, after a newer request started.
                return .none
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
                // The download stopped waiting for the answer (it was stopped or ended otherwise).
                return .none
            }
        }

        /// The retry timer `retry` went off.
        mutating func retryTimerFired(_ retry: Int) -> RetryTimerFiredAction {
            guard case .waitingToRetry(retry, _, _) = state else { return .none }
            state = .queued
            return .becomeQueued
        }

        /// The wait for the network number `wait` ended: the network is back (the download goes
        /// back to the queue, with its retries whole), or the wait was too long (it fails with
        /// `timeout`).
        mutating func networkWaitEnded(
            _ wait: Int, isNetworkBack: Bool, timeout: DownloadError
        ) -> NetworkWaitEndedAction {
            guard case .waitingForNetwork(wait, _, _) = state else { return .none }
            guard isNetworkBack else { return .becomeFailed(fail(timeout)) }
            automaticAttempts = 0
            retries = 0
            state = .queued
            return .becomeQueued
        }

        /// The complete file was checked and moved into place (or refused, or could not be).
        ///
        /// Only a finalizing download moves its file, and nothing takes it out of `finalizing` but
        /// this input: any other state is a broken invariant, which stops the program.
        mutating func finalized(_ result: Result<URL, DownloadError>) -> FinalizedAction {
            guard case .finalizing = state else {
                preconditionFailure("the download machine got `finalized` in state \(phase), not finalizing")
            }
            switch result {
            case .success(let url):
                state = .completed(url)
                return .becomeCompleted(url)
            case .failure(let error):
                return .becomeFailed(fail(error))
            }
        }

        // MARK: - Helpers

        /// A request to resume was taken: every count starts again.
        private mutating func resetCountsOnRequest() {
            automaticAttempts = 0
            retries = 0
            answeredChallenges = 0
        }

        /// Runs the next request, on the download's own, counted against
        /// ``automaticAttemptLimit``: returns its number, or the failure once the limit is reached
        /// (`reason` says why the last request was not enough).
        private mutating func automaticAttempt(reason: String) -> Result<Int, DownloadError> {
            guard Int(automaticAttempts) < Self.automaticAttemptLimit else {
                return .failure(
                    fail(
                        .unexpectedResponse(
                            "gave up after \(Self.automaticAttemptLimit) automatic requests; last: \(reason)")))
            }
            automaticAttempts += 1
            return .success(nextAttempt())
        }

        /// Waits for the network after `error`: returns the wait's number.
        private mutating func beginNetworkWait(after error: DownloadError) -> Int {
            lastNetworkWait &+= 1
            state = .waitingForNetwork(wait: Int(lastNetworkWait), error: error, timer: nil)
            return Int(lastNetworkWait)
        }

        /// Runs the next request: returns its number.
        private mutating func nextAttempt() -> Int {
            lastAttempt &+= 1
            state = .running(attempt: Int(lastAttempt), handle: nil)
            return Int(lastAttempt)
        }

        /// Ends the download with `error`, and returns it.
        private mutating func fail(_ error: DownloadError) -> DownloadError {
            state = .failed(error)
            return error
        }
    }
}
