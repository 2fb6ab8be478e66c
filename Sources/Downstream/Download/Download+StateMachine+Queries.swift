import Foundation

// What the machine's state says, read without changing it: its phase without resources, the
// state users see, the slot it needs, whether it settled, the request it runs.
extension Download.StateMachine {
    /// The state without what it holds.
    enum Phase: Equatable, Sendable {
        case queued
        case running(attempt: Int)
        case stopping(attempt: Int, then: AfterStop)
        case paused
        case waitingToRetry(retry: Int, error: DownloadError)
        case waitingForNetwork(wait: Int, error: DownloadError)
        case finalizing
        case failed(DownloadError)
        case completed(URL)
        case cancelled
    }

    var phase: Phase {
        switch state {
        case .queued: .queued
        case .running(let attempt, _): .running(attempt: attempt)
        case .stopping(let attempt, let then, _): .stopping(attempt: attempt, then: then)
        case .paused: .paused
        case .waitingToRetry(let retry, let error, _): .waitingToRetry(retry: retry, error: error)
        case .waitingForNetwork(let wait, let error, _): .waitingForNetwork(wait: wait, error: error)
        case .finalizing: .finalizing
        case .failed(let error): .failed(error)
        case .completed(let url): .completed(url)
        case .cancelled: .cancelled
        }
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
        case .running, .stopping: .holding
        // A finalizing download's transfer is over: the next one starts while it checks and places
        // its file (which only completes or fails it).
        case .finalizing, .paused, .waitingToRetry, .waitingForNetwork, .failed, .completed, .cancelled: .none
        }
    }

    /// Whether no request is stopping and no file is being moved into place.
    var isSettled: Bool {
        switch state {
        case .stopping, .finalizing: false
        case .queued, .running, .paused, .waitingToRetry, .waitingForNetwork, .failed, .completed, .cancelled: true
        }
    }

    /// The handle of the request the running or stopping attempt runs, once it was given.
    var attemptHandle: AttemptHandle? {
        switch state {
        case .running(_, let handle), .stopping(_, _, let handle): handle
        case .queued, .paused, .waitingToRetry, .waitingForNetwork, .finalizing, .failed, .completed, .cancelled:
            nil
        }
    }

    /// Whether the next request hands a `401` or `407` to the download as a challenge, rather
    /// than failing with it: the download has an authentication handler, and it has not
    /// answered `challengeLimit` challenges yet.
    var answersChallenges: Bool {
        answeredChallenges < challengeLimit
    }
}
