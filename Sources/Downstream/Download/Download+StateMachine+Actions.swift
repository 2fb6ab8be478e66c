import Foundation

extension Download {
    /// What to do once a stopping request has ended.
    enum AfterStop: Equatable, Sendable {
        case pause
        case resume
        /// Preempted (the limits shrank): back to the queue.
        case requeue
        case cancel(keepingPartialData: Bool)
        /// Stopped for its network access, which forbids the network there is (the error says
        /// which policy): wait for an allowed network.
        case waitForNetwork(DownloadError)
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
}

// The action types of the machine's inputs: one per input, with only the cases that input can
// lead to. An action hands over the resources the state held that the download must act on (the
// request to stop, the timer to cancel).
extension Download.StateMachine {
    enum StartAction: Equatable, Sendable {
        case none
        /// Send request `attempt`, of kind ``AttemptKind/first``.
        case startAttempt(Int)
    }

    enum PauseAction: Sendable {
        case none
        /// Stopped; `cancelling` is the timer of the wait it was in.
        case becomePaused(savingIntent: Bool, cancelling: Wait? = nil)
        /// Stop request `attempt` (`handle`), keeping what the system can resume from.
        case stopAttempt(Int, handle: AttemptHandle? = nil)
    }

    enum ResumeAction: Sendable {
        case none
        /// Wait in the queue; `reopening` a download that had failed: its outcome, events and
        /// progress open again for the new run. `cancelling` is the timer of the wait it was in.
        case becomeQueued(reopening: Bool, cancelling: Wait? = nil)
    }

    enum PreemptAction: Sendable {
        case none
        /// Stop request `attempt` (`handle`), keeping what the system can resume from.
        case stopAttempt(Int, handle: AttemptHandle? = nil)
    }

    enum CancelAction: Sendable {
        case none
        /// Cancelled; `cancelling` is the timer of the wait it was in.
        case becomeCancelled(keepingPartialData: Bool, cancelling: Wait? = nil)
        /// Stop request `attempt` (`handle`); keep what the system can resume from if
        /// `keepingPartialData`.
        case stopAttempt(Int, keepingPartialData: Bool, handle: AttemptHandle? = nil)
    }

    enum NetworkRefusedAction: Sendable {
        case none
        /// Stop request `attempt` (`handle`), keeping what the system can resume from; its end
        /// makes the download wait for the network.
        case stopAttempt(Int, handle: AttemptHandle? = nil)
        /// Wait for the network, at most as long as the settings say (give the wait to
        /// ``timerStarted(_:forNetworkWait:)``), then give `wait` to
        /// ``networkWaitEnded(_:isNetworkBack:timeout:)``.
        case waitForNetwork(Int, error: DownloadError)
    }

    enum ShutDownAction: Sendable {
        case none
        /// Stopped; the record keeps the intent it had. `cancelling` is the timer of the wait it
        /// was in.
        case becomePaused(cancelling: Wait? = nil)
        /// Stop request `attempt` (`handle`), keeping what the system can resume from; its end
        /// pauses the download, and the record keeps the intent it had.
        case stopAttempt(Int, handle: AttemptHandle? = nil)
    }

    enum URLChangedAction: Sendable {
        /// The download has its file, or will not: the URL is not taken.
        case refuse
        /// Take the URL for the next request; nothing to stop.
        case none
        /// Take the URL, and stop request `attempt` (`handle`), keeping what the system can resume
        /// from.
        case stopAttempt(Int, handle: AttemptHandle? = nil)
    }

    enum AdoptAction: Sendable {
        /// The download runs another request, or ended: the task is not wanted.
        case decline
        /// The task is request `attempt` of the download, which runs now: give it to
        /// ``attemptStarted(_:_:)``. `cancelling` is the timer of the wait it was in.
        case adopt(Int, cancelling: Wait? = nil)
    }

    enum AttemptEndedAction: Equatable, Sendable {
        case none
        case startAttempt(Int, AttemptKind)
        case finalize
        /// Ask the authentication handler about the challenge that ended request `attempt`,
        /// then give its answer to ``challengeAnswered(_:_:refusal:)``.
        case answerChallenge(Int, AuthenticationChallenge)
        /// Wait `delay` (give the timer to ``timerStarted(_:forRetry:)``), then give `retry` to
        /// ``retryTimerFired(_:)``.
        case scheduleRetry(Int, after: Duration, error: DownloadError)
        /// Wait for the network, at most as long as the settings say (give the wait to
        /// ``timerStarted(_:forNetworkWait:)``), then give `wait` to
        /// ``networkWaitEnded(_:isNetworkBack:timeout:)``.
        case waitForNetwork(Int, error: DownloadError)
        case becomeQueued
        case becomePaused(savingIntent: Bool)
        case becomeFailed(DownloadError)
        case becomeCancelled(keepingPartialData: Bool)
        case becomeCompleted(URL)
    }

    enum ProceedAction: Equatable, Sendable {
        /// The attempt still runs: go on with it.
        case proceed
        /// The attempt was stopped meanwhile (paused, preempted, moved to another URL,
        /// cancelled), or is an earlier one: what its end leads to.
        case ended(AttemptEndedAction)
    }

    enum ChallengeAnsweredAction: Equatable, Sendable {
        case none
        case startAttempt(Int, AttemptKind)
        case becomeQueued
        case becomePaused(savingIntent: Bool)
        case becomeFailed(DownloadError)
        case becomeCancelled(keepingPartialData: Bool)
        case waitForNetwork(Int, error: DownloadError)
    }

    enum RetryTimerFiredAction: Equatable, Sendable {
        case none
        case becomeQueued
    }

    enum NetworkWaitEndedAction: Equatable, Sendable {
        case none
        case becomeQueued
        case becomeFailed(DownloadError)
    }

    enum FinalizedAction: Equatable, Sendable {
        case becomeCompleted(URL)
        case becomeFailed(DownloadError)
    }
}

// Equality, synthesized, where the resources an action hands over can be compared (a test's
// machine holds plain values): tests check what is to be done and with what.
extension Download.StateMachine.PauseAction: Equatable where AttemptHandle: Equatable, Wait: Equatable {}
extension Download.StateMachine.ResumeAction: Equatable where Wait: Equatable {}
extension Download.StateMachine.PreemptAction: Equatable where AttemptHandle: Equatable {}
extension Download.StateMachine.NetworkRefusedAction: Equatable where AttemptHandle: Equatable {}
extension Download.StateMachine.CancelAction: Equatable where AttemptHandle: Equatable, Wait: Equatable {}
extension Download.StateMachine.ShutDownAction: Equatable where AttemptHandle: Equatable, Wait: Equatable {}
extension Download.StateMachine.URLChangedAction: Equatable where AttemptHandle: Equatable {}
extension Download.StateMachine.AdoptAction: Equatable where Wait: Equatable {}
