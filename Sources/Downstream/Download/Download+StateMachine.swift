import Foundation

extension Download {
    /// The life of one download as a value: each input returns its own small action type, with
    /// only the cases that input can lead to.
    ///
    /// No I/O happens here; ``Download`` performs the actions. Requests (start, pause, resume,
    /// cancel) are accepted in any order and any number of times. A download waits in the queue
    /// until its manager's scheduler gives it a slot (`start`). A running request is stopped by
    /// cancelling its URLSession task, which URLSession may honour late or not at all: until the
    /// request reports its end the download is `stopping` (and keeps its slot), and no second
    /// request starts, so two requests never write the same partial file.
    ///
    /// Cases of the same name mean the same in every action type:
    /// - `startAttempt(attempt, kind)`: send request number `attempt`, which reports its end to
    ///   ``attemptEnded(_:_:recovery:)``.
    /// - `stopAttempt(attempt)`: stop that request (it still reports its end).
    /// - `finalize`: check the complete partial file and move it into place, then tell
    ///   ``finalized(_:)``.
    /// - `becomeQueued`: wait in the queue for a slot.
    /// - `becomePaused(savingIntent:)`: stopped; the record says so unless the manager shut down
    ///   (see ``shutDown(requestOutlivesProcess:)``).
    /// - `becomeFailed`, `becomeCancelled`, `becomeCompleted`: the download ended so.
    struct StateMachine: Sendable {
        enum State: Equatable, Sendable {
            /// Waiting for a slot.
            case queued
            /// Request `attempt` runs (or ended with a challenge that the authentication handler
            /// is answering).
            case running(attempt: Int)
            case stopping(attempt: Int, then: AfterStop)
            case paused
            /// A transient failure: waiting for the retry timer `retry`.
            case waitingToRetry(retry: Int, error: DownloadError)
            /// No network: waiting for it (wait number `wait`), after `error`.
            case waitingForNetwork(wait: Int, error: DownloadError)
            case finalizing
            case failed(DownloadError)
            case completed(URL)
            case cancelled
        }

        /// What to do once a stopping request has ended.
        enum AfterStop: Equatable, Sendable {
            case pause
            case resume
            /// Preempted (the limits shrank): back to the queue.
            case requeue
            case cancel(keepingPartialData: Bool)
        }

        /// How the download recovers from a failed request, decided before the machine takes the
        /// failure.
        enum Recovery: Equatable, Sendable {
            /// None: the download fails.
            case none
            /// Try again after `delay`; counts as a retry.
            case retry(after: Duration)
            /// Try again at once, from another URL: the retries start again.
            case switchURL
            /// There is no network: wait for it; counts as no retry.
            case waitForNetwork
        }

        /// Whether the download waits for a slot, holds one, or needs none.
        enum SlotNeed: Equatable, Sendable {
            case waiting, holding, none
        }

        /// How many requests a run may send on its own without progress (restarts, continuations
        /// that received nothing, answered challenges) before it gives up.
        static let automaticAttemptLimit = 5

        private(set) var state: State
        /// How many challenges the download answers from one start or resume by request to the
        /// next: the authentication settings' maximum, or 0 without an authentication handler.
        let challengeLimit: Int
        private var lastAttempt = 0
        private var automaticAttempts = 0
        private var lastRetry = 0
        private var lastNetworkWait = 0
        /// Retries after transient failures since the download last started or resumed by request.
        private(set) var retries = 0
        /// Challenges answered since the download last started or resumed by request.
        private(set) var answeredChallenges = 0
        /// Whether the download's manager shut down (see ``shutDown(requestOutlivesProcess:)``).
        private(set) var isShutDown = false

        /// A machine in `state`: `.queued` for a new download, `.paused` for one restored from the
        /// store.
        init(state: State = .queued, challengeLimit: Int = 0) {
            self.state = state
            self.challengeLimit = challengeLimit
        }

        /// The state users see.
        var publicState: DownloadState {
            switch state {
            case .queued: .queued
            case .running, .stopping, .finalizing: .running
            case .paused: .paused
            case .waitingToRetry: .waitingToRetry
            case .waitingForNetwork: .waitingForNetwork
            case .failed: .failed
            case .completed: .completed
            case .cancelled: .cancelled
            }
        }

        var slotNeed: SlotNeed {
            switch state {
            case .queued: .waiting
            case .running, .stopping, .finalizing: .holding
            case .paused, .waitingToRetry, .waitingForNetwork, .failed, .completed, .cancelled: .none
            }
        }

        /// Whether no request is stopping and no file is being moved into place.
        var isSettled: Bool {
            switch state {
            case .stopping, .finalizing: false
            case .queued, .running, .paused, .waitingToRetry, .waitingForNetwork, .failed, .completed, .cancelled: true
            }
        }

        /// Whether the next request hands a `401` or `407` to the download as a challenge, rather
        /// than failing with it: the download has an authentication handler, and it has not
        /// answered `challengeLimit` challenges yet.
        var answersChallenges: Bool {
            answeredChallenges < challengeLimit
        }

        // MARK: - Requests

        enum StartAction: Equatable, Sendable {
            case none
            /// Send request `attempt`, of kind ``AttemptKind/run``.
            case startAttempt(Int)
        }

        /// The scheduler gave the download a slot.
        mutating func start() -> StartAction {
            guard state == .queued else { return .none }
            return .startAttempt(nextAttempt())
        }

        enum PauseAction: Equatable, Sendable {
            case none
            case becomePaused(savingIntent: Bool)
            /// Stop request `attempt`, keeping what the system can resume from.
            case stopAttempt(Int)
        }

        mutating func pause() -> PauseAction {
            switch state {
            case .queued, .waitingToRetry, .waitingForNetwork:
                state = .paused
                return .becomePaused(savingIntent: !isShutDown)
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .pause)
                return .stopAttempt(attempt)
            case .stopping(let attempt, .resume), .stopping(let attempt, .requeue):
                state = .stopping(attempt: attempt, then: .pause)
                return .none
            case .stopping, .paused, .finalizing, .failed, .completed, .cancelled:
                return .none
            }
        }

        enum ResumeAction: Equatable, Sendable {
            case none
            /// Wait in the queue; `reopening` a download that had failed: its outcome, events and
            /// progress open again for the new run.
            case becomeQueued(reopening: Bool)
        }

        /// Queues a paused or failed download again (or retries a waiting one at once). The
        /// retries, automatic requests and answered challenges count from 0 again.
        mutating func resume() -> ResumeAction {
            switch state {
            case .paused, .waitingToRetry, .waitingForNetwork:
                resetCountsOnRequest()
                state = .queued
                return .becomeQueued(reopening: false)
            case .failed(let error):
                guard error.allowsResume else { return .none }
                resetCountsOnRequest()
                state = .queued
                return .becomeQueued(reopening: true)
            case .stopping(let attempt, .pause), .stopping(let attempt, .requeue):
                resetCountsOnRequest()
                state = .stopping(attempt: attempt, then: .resume)
                return .none
            case .queued, .running, .stopping, .finalizing, .completed, .cancelled:
                return .none
            }
        }

        enum PreemptAction: Equatable, Sendable {
            case none
            /// Stop request `attempt`, keeping what the system can resume from.
            case stopAttempt(Int)
        }

        /// The limits shrank: a running download gives its slot back and waits in the queue.
        mutating func preempt() -> PreemptAction {
            switch state {
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .requeue)
                return .stopAttempt(attempt)
            case .stopping(let attempt, .resume):
                state = .stopping(attempt: attempt, then: .requeue)
                return .none
            case .stopping(_, .pause), .stopping(_, .requeue), .stopping(_, .cancel):
                // Stopping for a reason of its own already, which gives the slot back too.
                return .none
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
                // No slot to give back (a finalizing download keeps its own until the file is placed).
                return .none
            }
        }

        enum CancelAction: Equatable, Sendable {
            case none
            case becomeCancelled(keepingPartialData: Bool)
            /// Stop request `attempt`; keep what the system can resume from if `keepingPartialData`.
            case stopAttempt(Int, keepingPartialData: Bool)
        }

        mutating func cancel(keepingPartialData keep: Bool) -> CancelAction {
            switch state {
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .failed:
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .cancel(keepingPartialData: keep))
                return .stopAttempt(attempt, keepingPartialData: keep)
            case .stopping(let attempt, _):
                state = .stopping(attempt: attempt, then: .cancel(keepingPartialData: keep))
                return .none
            case .finalizing, .completed, .cancelled:
                return .none
            }
        }

        enum ShutDownAction: Equatable, Sendable {
            case none
            /// Stopped; the record keeps the intent it had.
            case becomePaused
            /// Stop request `attempt`, keeping what the system can resume from; its end pauses the
            /// download, and the record keeps the intent it had.
            case stopAttempt(Int)
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
            case .becomePaused: return .becomePaused
            case .stopAttempt(let attempt): return .stopAttempt(attempt)
            }
        }

        enum URLChangedAction: Equatable, Sendable {
            /// The download has its file, or will not: the URL is not taken.
            case refuse
            /// Take the URL for the next request; nothing to stop.
            case none
            /// Take the URL, and stop request `attempt`, keeping what the system can resume from.
            case stopAttempt(Int)
        }

        /// The download is to take its file from another URL: a running request stops, and the
        /// next one continues from the bytes on disk; a download between requests uses it for the
        /// next one. A download that completed, was cancelled, or is moving its complete file into
        /// place refuses it.
        mutating func urlChanged() -> URLChangedAction {
            switch state {
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .resume)
                return .stopAttempt(attempt)
            case .queued, .stopping, .paused, .waitingToRetry, .waitingForNetwork, .failed:
                return .none
            case .finalizing, .completed, .cancelled:
                return .refuse
            }
        }

        enum AdoptAction: Equatable, Sendable {
            /// The download runs another request, or ended: the task is not wanted.
            case decline
            /// The task is request `attempt` of the download, which runs now.
            case adopt(Int)
        }

        /// Takes on a request this process did not start (a system task found after a relaunch).
        mutating func adopt() -> AdoptAction {
            switch state {
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .failed:
                automaticAttempts = 0
                return .adopt(nextAttempt())
            case .running, .stopping, .finalizing, .completed, .cancelled:
                return .decline
            }
        }

        // MARK: - Ends of requests and waits

        enum AttemptEndedAction: Equatable, Sendable {
            case none
            case startAttempt(Int, AttemptKind)
            case finalize
            /// Ask the authentication handler about the challenge that ended request `attempt`,
            /// then give its answer to ``StateMachine/challengeAnswered(_:_:authorized:)``.
            case answerChallenge(Int, AuthenticationChallenge)
            /// Wait `delay`, then give `retry` to ``StateMachine/retryTimerFired(_:)``.
            case scheduleRetry(Int, after: Duration, error: DownloadError)
            /// Wait for the network, at most as long as the settings say, then give `wait` to
            /// ``StateMachine/networkWaitEnded(_:isNetworkBack:timeout:)``.
            case waitForNetwork(Int, error: DownloadError)
            case becomeQueued
            case becomePaused(savingIntent: Bool)
            case becomeFailed(DownloadError)
            case becomeCancelled(keepingPartialData: Bool)
            case becomeCompleted(URL)
        }

        /// Request `attempt` ended.
        ///
        /// A challenge is answered up to `challengeLimit` times from one start or resume by
        /// request to the next; beyond, or without a handler, the download fails with its status.
        /// - Parameter recovery: for a failure, how the download recovers from it.
        mutating func attemptEnded(
            _ attempt: Int, _ end: TransferEnd, recovery: Recovery = .none
        ) -> AttemptEndedAction {
            switch state {
            case .running(attempt):
                return runningAttemptEnded(attempt, end, recovery: recovery)
            case .stopping(attempt, let then):
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
                    lastNetworkWait += 1
                    state = .waitingForNetwork(wait: lastNetworkWait, error: error)
                    return .waitForNetwork(lastNetworkWait, error: error)
                }
            }
        }

        private mutating func waitToRetry(after delay: Duration, error: DownloadError) -> AttemptEndedAction {
            lastRetry += 1
            state = .waitingToRetry(retry: lastRetry, error: error)
            return .scheduleRetry(lastRetry, after: delay, error: error)
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
            case (.resume, .restart):
                return .startAttempt(nextAttempt(), .restart)
            case (.resume, _):
                return .startAttempt(nextAttempt(), .run)
            }
        }

        enum ProceedAction: Equatable, Sendable {
            /// The attempt still runs: go on with it.
            case proceed
            /// The attempt was stopped meanwhile (paused, preempted, moved to another URL,
            /// cancelled), or is an earlier one: what its end leads to.
            case ended(AttemptEndedAction)
        }

        /// A step of request `attempt` taken off the machine finished: a failure whose recovery is
        /// to be decided, the existing file checked, a fresh URL asked for. The step goes on while
        /// the attempt runs; otherwise the attempt ends with `end`, as the end of a stopped
        /// request.
        mutating func stepFinished(_ attempt: Int, otherwise end: TransferEnd) -> ProceedAction {
            guard state == .running(attempt: attempt) else { return .ended(attemptEnded(attempt, end)) }
            return .proceed
        }

        enum ChallengeAnsweredAction: Equatable, Sendable {
            case none
            case startAttempt(Int, AttemptKind)
            case becomeQueued
            case becomePaused(savingIntent: Bool)
            case becomeFailed(DownloadError)
            case becomeCancelled(keepingPartialData: Bool)
        }

        /// The authentication handler answered `challenge`, which ended request `attempt`: with
        /// credentials (`authorized`) the next request sends them, without them the download fails
        /// with the challenge's status. A download paused, preempted, moved to another URL or
        /// cancelled meanwhile does that instead.
        mutating func challengeAnswered(
            _ attempt: Int, _ challenge: AuthenticationChallenge, authorized: Bool
        ) -> ChallengeAnsweredAction {
            switch state {
            case .running(attempt):
                guard authorized else { return .becomeFailed(fail(.httpStatus(challenge.response.statusCode))) }
                switch automaticAttempt(reason: "empty ranges") {
                case .success(let next): return .startAttempt(next, .continuation)
                case .failure(let error): return .becomeFailed(error)
                }
            case .stopping(attempt, .cancel(let keep)):
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case .stopping(attempt, .pause):
                state = .paused
                return .becomePaused(savingIntent: !isShutDown)
            case .stopping(attempt, .requeue):
                state = .queued
                return .becomeQueued
            case .stopping(attempt, .resume):
                return .startAttempt(nextAttempt(), .run)
            case .running, .stopping:
                // The answer to an earlier request's challenge, after a newer request started.
                return .none
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
                // The download stopped waiting for the answer (it was stopped or ended otherwise).
                return .none
            }
        }

        enum RetryTimerFiredAction: Equatable, Sendable {
            case none
            case becomeQueued
        }

        /// The retry timer `retry` went off.
        mutating func retryTimerFired(_ retry: Int) -> RetryTimerFiredAction {
            guard case .waitingToRetry(retry, _) = state else { return .none }
            state = .queued
            return .becomeQueued
        }

        enum NetworkWaitEndedAction: Equatable, Sendable {
            case none
            case becomeQueued
            case becomeFailed(DownloadError)
        }

        /// The wait for the network number `wait` ended: the network is back (the download goes
        /// back to the queue, with its retries whole), or the wait was too long (it fails with
        /// `timeout`).
        mutating func networkWaitEnded(
            _ wait: Int, isNetworkBack: Bool, timeout: DownloadError
        ) -> NetworkWaitEndedAction {
            guard case .waitingForNetwork(wait, _) = state else { return .none }
            guard isNetworkBack else { return .becomeFailed(fail(timeout)) }
            automaticAttempts = 0
            retries = 0
            state = .queued
            return .becomeQueued
        }

        enum FinalizedAction: Equatable, Sendable {
            case becomeCompleted(URL)
            case becomeFailed(DownloadError)
        }

        /// The complete file was checked and moved into place (or refused, or could not be).
        ///
        /// Only a finalizing download moves its file, and nothing takes it out of `finalizing` but
        /// this input: any other state is a broken invariant, which stops the program.
        mutating func finalized(_ result: Result<URL, DownloadError>) -> FinalizedAction {
            guard state == .finalizing else {
                preconditionFailure("the download machine got `finalized` in state \(state), not finalizing")
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
            guard automaticAttempts < Self.automaticAttemptLimit else {
                return .failure(
                    fail(
                        .unexpectedResponse(
                            "gave up after \(Self.automaticAttemptLimit) automatic requests; last: \(reason)")))
            }
            automaticAttempts += 1
            return .success(nextAttempt())
        }

        /// Runs the next request: returns its number.
        private mutating func nextAttempt() -> Int {
            lastAttempt += 1
            state = .running(attempt: lastAttempt)
            return lastAttempt
        }

        /// Ends the download with `error`, and returns it.
        private mutating func fail(_ error: DownloadError) -> DownloadError {
            state = .failed(error)
            return error
        }
    }
}
