import Foundation

extension Download {
    /// The life of one download as a value: each input returns the one action to perform.
    ///
    /// No I/O happens here; ``Download`` performs the actions. Requests (start, pause, resume,
    /// cancel) are accepted in any order and any number of times. A download waits in the queue
    /// until its manager's scheduler gives it a slot (`start`). A running request is stopped by
    /// cancelling its URLSession task, which URLSession may honour late or not at all: until the
    /// request reports its end the download is `stopping` (and keeps its slot), and no second
    /// request starts, so two requests never write the same partial file.
    struct StateMachine: Sendable {
        enum State: Equatable, Sendable {
            /// Waiting for a slot.
            case queued
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

        /// Why a request starts.
        enum AttemptKind: Equatable, Sendable {
            /// The download starts or resumes: continue from the partial file.
            case run
            /// The previous response could not be used: discard the partial file, start at byte 0.
            case restart
            /// The previous request ended where it was meant to (or the server chose to): go on
            /// from the partial file.
            case continuation
        }

        enum Action: Equatable, Sendable {
            case none
            case startAttempt(Int, AttemptKind)
            case stopAttempt(Int)
            /// Move the complete partial file to the destination.
            case finalize
            /// Wait in the queue for a slot.
            case becomeQueued
            case becomePaused
            /// Wait `delay`, then give `retry` to ``StateMachine/retryTimerFired(_:)``.
            case scheduleRetry(Int, after: Duration, error: DownloadError)
            /// Wait for the network, at most as long as the settings say, then give `wait` to
            /// ``StateMachine/networkWaitEnded(_:isNetworkBack:timeout:)``.
            case waitForNetwork(Int, error: DownloadError)
            case becomeFailed(DownloadError)
            case becomeCancelled(keepingPartialData: Bool)
            case becomeCompleted(URL)
        }

        /// Whether the download waits for a slot, holds one, or needs none.
        enum SlotNeed: Equatable, Sendable {
            case waiting, holding, none
        }

        /// How many requests a run may send on its own without progress (restarts, and
        /// continuations that received nothing) before it gives up.
        static let automaticAttemptLimit = 5

        private(set) var state: State
        private var lastAttempt = 0
        private var automaticAttempts = 0
        private var lastRetry = 0
        private var lastNetworkWait = 0
        /// Retries after transient failures since the download last started or resumed by request.
        private(set) var retries = 0

        /// A machine in `state`: `.queued` for a new download, `.paused` for one restored from the
        /// store.
        init(state: State = .queued) {
            self.state = state
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
            default: true
            }
        }

        /// The scheduler gave the download a slot.
        mutating func start() -> Action {
            guard state == .queued else { return .none }
            return nextAttempt(.run)
        }

        mutating func pause() -> Action {
            switch state {
            case .queued, .waitingToRetry, .waitingForNetwork:
                state = .paused
                return .becomePaused
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

        /// Queues a paused or failed download again (or retries a waiting one at once).
        mutating func resume() -> Action {
            switch state {
            case .paused, .waitingToRetry, .waitingForNetwork:
                return requeue(resettingCounts: true)
            case .failed(let error):
                guard error.allowsResume else { return .none }
                return requeue(resettingCounts: true)
            case .stopping(let attempt, .pause), .stopping(let attempt, .requeue):
                automaticAttempts = 0
                retries = 0
                state = .stopping(attempt: attempt, then: .resume)
                return .none
            case .queued, .running, .stopping, .finalizing, .completed, .cancelled:
                return .none
            }
        }

        /// The limits shrank: a running download gives its slot back and waits in the queue.
        mutating func preempt() -> Action {
            switch state {
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .requeue)
                return .stopAttempt(attempt)
            case .stopping(let attempt, .resume):
                state = .stopping(attempt: attempt, then: .requeue)
                return .none
            default:
                return .none
            }
        }

        mutating func cancel(keepingPartialData keep: Bool) -> Action {
            switch state {
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .failed:
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .cancel(keepingPartialData: keep))
                return .stopAttempt(attempt)
            case .stopping(let attempt, _):
                state = .stopping(attempt: attempt, then: .cancel(keepingPartialData: keep))
                return .none
            case .finalizing, .completed, .cancelled:
                return .none
            }
        }

        /// - Parameter recovery: for a failure, how the download recovers from it.
        mutating func attemptEnded(_ attempt: Int, _ end: TransferEnd, recovery: Recovery = .none) -> Action {
            switch state {
            case .running(attempt):
                return runningAttemptEnded(end, recovery: recovery)
            case .stopping(attempt, let then):
                return stoppingAttemptEnded(end, then: then)
            default:
                return .none
            }
        }

        /// The retry timer `retry` went off.
        mutating func retryTimerFired(_ retry: Int) -> Action {
            guard case .waitingToRetry(retry, _) = state else { return .none }
            return requeue(resettingCounts: false)
        }

        /// The wait for the network number `wait` ended: the network is back (the download goes
        /// back to the queue, with its retries whole), or the wait was too long (it fails with
        /// `timeout`).
        mutating func networkWaitEnded(_ wait: Int, isNetworkBack: Bool, timeout: DownloadError) -> Action {
            guard case .waitingForNetwork(wait, _) = state else { return .none }
            return isNetworkBack ? requeue(resettingCounts: true) : fail(timeout)
        }

        /// The download takes its file from another URL now: a running request stops, and the
        /// next one continues from the bytes on disk. Otherwise nothing changes until the next
        /// request.
        mutating func urlChanged() -> Action {
            guard case .running(let attempt) = state else { return .none }
            state = .stopping(attempt: attempt, then: .resume)
            return .stopAttempt(attempt)
        }

        /// Takes on a request this process did not start (a system task found after a relaunch).
        /// Returns its attempt number, or nil if the download already runs one or has ended: the
        /// task is then not wanted.
        mutating func adopt() -> Int? {
            switch state {
            case .queued, .paused, .waitingToRetry, .waitingForNetwork, .failed:
                automaticAttempts = 0
                lastAttempt += 1
                state = .running(attempt: lastAttempt)
                return lastAttempt
            case .running, .stopping, .finalizing, .completed, .cancelled:
                return nil
            }
        }

        mutating func finalized(_ result: Result<URL, DownloadError>) -> Action {
            guard state == .finalizing else { return .none }
            switch result {
            case .success(let url):
                state = .completed(url)
                return .becomeCompleted(url)
            case .failure(let error):
                state = .failed(error)
                return .becomeFailed(error)
            }
        }

        private mutating func runningAttemptEnded(_ end: TransferEnd, recovery: Recovery) -> Action {
            switch end {
            case .finished:
                state = .finalizing
                return .finalize
            case .destinationIsCurrent(let url):
                state = .completed(url)
                return .becomeCompleted(url)
            case .incomplete(progressed: true):
                return nextAttempt(.continuation)
            case .incomplete(progressed: false), .restart:
                guard automaticAttempts < Self.automaticAttemptLimit else {
                    let reason: String = if case .restart(let reason) = end { reason } else { "empty ranges" }
                    return fail(
                        .unexpectedResponse(
                            "gave up after \(Self.automaticAttemptLimit) automatic requests; last: \(reason)"))
                }
                automaticAttempts += 1
                return nextAttempt(end == .incomplete(progressed: false) ? .continuation : .restart)
            case .challenged(let challenge):
                return fail(.httpStatus(challenge.response.statusCode))
            case .cancelled:
                // Only stopping requests are cancelled by us: something else cancelled the task.
                return fail(.network(.cancelled, reason: "the request was cancelled by the system"))
            case .failed(let error):
                switch recovery {
                case .none:
                    return fail(error)
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

        private mutating func waitToRetry(after delay: Duration, error: DownloadError) -> Action {
            lastRetry += 1
            state = .waitingToRetry(retry: lastRetry, error: error)
            return .scheduleRetry(lastRetry, after: delay, error: error)
        }

        private mutating func stoppingAttemptEnded(_ end: TransferEnd, then: AfterStop) -> Action {
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
                return .becomePaused
            case (.requeue, _):
                return requeue(resettingCounts: false)
            case (.resume, .restart):
                return nextAttempt(.restart)
            case (.resume, _):
                return nextAttempt(.run)
            }
        }

        private mutating func requeue(resettingCounts: Bool) -> Action {
            if resettingCounts {
                automaticAttempts = 0
                retries = 0
            }
            state = .queued
            return .becomeQueued
        }

        private mutating func nextAttempt(_ kind: AttemptKind) -> Action {
            lastAttempt += 1
            state = .running(attempt: lastAttempt)
            return .startAttempt(lastAttempt, kind)
        }

        private mutating func fail(_ error: DownloadError) -> Action {
            state = .failed(error)
            return .becomeFailed(error)
        }
    }
}
