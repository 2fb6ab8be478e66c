import Foundation

extension Download {
    /// The life of one download as a value: each input returns the one action to perform.
    ///
    /// No I/O happens here; ``Download`` performs the actions. Requests (start, pause, resume,
    /// cancel) are accepted in any order and any number of times. A running request is stopped by
    /// cancelling its URLSession task, which URLSession may honour late or not at all: until the
    /// request reports its end the download is `stopping`, and no second request starts, so two
    /// requests never write the same partial file.
    struct StateMachine: Sendable {
        enum State: Equatable, Sendable {
            case queued
            case running(attempt: Int)
            case stopping(attempt: Int, then: AfterStop)
            case paused
            case finalizing
            case failed(DownloadError)
            case completed(URL)
            case cancelled
        }

        /// What to do once a stopping request has ended.
        enum AfterStop: Equatable, Sendable {
            case pause
            case resume
            case cancel(keepingPartialData: Bool)
        }

        /// How one request (an attempt) ended.
        enum AttemptEnd: Equatable, Sendable {
            /// The partial file holds the whole file.
            case finished
            /// The server sent a shorter range than asked for; more is to come.
            case incompleteRange
            /// Stopped on request.
            case cancelled
            /// The response could not be used; ask again from the first byte.
            case restart(reason: String)
            case failed(DownloadError)
        }

        enum Action: Equatable, Sendable {
            case none
            /// Send a request, continuing from the partial file or, if `fromStart`, from byte 0.
            case startAttempt(Int, fromStart: Bool)
            case stopAttempt(Int)
            /// Move the complete partial file to the destination.
            case finalize
            case becomePaused
            case becomeFailed(DownloadError)
            case becomeCancelled(keepingPartialData: Bool)
            case becomeCompleted(URL)
        }

        /// How many requests a run may send on its own (restarts and continuations) before it
        /// gives up.
        static let automaticAttemptLimit = 5

        private(set) var state: State = .queued
        private var lastAttempt = 0
        private var automaticAttempts = 0

        /// The state users see.
        var publicState: DownloadState {
            switch state {
            case .queued: .queued
            case .running, .stopping, .finalizing: .running
            case .paused: .paused
            case .failed: .failed
            case .completed: .completed
            case .cancelled: .cancelled
            }
        }

        /// Whether no request is stopping and no file is being moved into place.
        var isSettled: Bool {
            switch state {
            case .stopping, .finalizing: false
            default: true
            }
        }

        mutating func start() -> Action {
            guard state == .queued else { return .none }
            return beginRun()
        }

        mutating func pause() -> Action {
            switch state {
            case .queued:
                state = .paused
                return .becomePaused
            case .running(let attempt):
                state = .stopping(attempt: attempt, then: .pause)
                return .stopAttempt(attempt)
            case .stopping(let attempt, .resume):
                state = .stopping(attempt: attempt, then: .pause)
                return .none
            case .stopping, .paused, .finalizing, .failed, .completed, .cancelled:
                return .none
            }
        }

        mutating func resume() -> Action {
            switch state {
            case .queued, .paused:
                return beginRun()
            case .failed(let error):
                guard error.kind != .invalidRequest else { return .none }
                return beginRun()
            case .stopping(let attempt, .pause):
                state = .stopping(attempt: attempt, then: .resume)
                return .none
            case .running, .stopping, .finalizing, .completed, .cancelled:
                return .none
            }
        }

        mutating func cancel(keepingPartialData keep: Bool) -> Action {
            switch state {
            case .queued, .paused, .failed:
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

        mutating func attemptEnded(_ attempt: Int, _ end: AttemptEnd) -> Action {
            switch state {
            case .running(attempt):
                return runningAttemptEnded(end)
            case .stopping(attempt, let then):
                return stoppingAttemptEnded(end, then: then)
            default:
                return .none
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

        private mutating func runningAttemptEnded(_ end: AttemptEnd) -> Action {
            switch end {
            case .finished:
                state = .finalizing
                return .finalize
            case .incompleteRange, .restart:
                guard automaticAttempts < Self.automaticAttemptLimit else {
                    let reason: String = if case .restart(let reason) = end { reason } else { "short ranges" }
                    return fail(
                        .unexpectedResponse(
                            "gave up after \(Self.automaticAttemptLimit) automatic requests; last: \(reason)"))
                }
                automaticAttempts += 1
                return nextAttempt(fromStart: end != .incompleteRange)
            case .cancelled:
                // Only stopping requests are cancelled by us: something else cancelled the task.
                return fail(.network(.cancelled, reason: "the request was cancelled by the system"))
            case .failed(let error):
                return fail(error)
            }
        }

        private mutating func stoppingAttemptEnded(_ end: AttemptEnd, then: AfterStop) -> Action {
            switch (then, end) {
            case (.cancel(let keep), _):
                state = .cancelled
                return .becomeCancelled(keepingPartialData: keep)
            case (_, .finished):
                // The stop came too late: every byte is on disk, so deliver the file.
                state = .finalizing
                return .finalize
            case (.pause, _):
                state = .paused
                return .becomePaused
            case (.resume, .restart):
                automaticAttempts = 0
                return nextAttempt(fromStart: true)
            case (.resume, _):
                automaticAttempts = 0
                return nextAttempt(fromStart: false)
            }
        }

        private mutating func beginRun() -> Action {
            automaticAttempts = 0
            return nextAttempt(fromStart: false)
        }

        private mutating func nextAttempt(fromStart: Bool) -> Action {
            lastAttempt += 1
            state = .running(attempt: lastAttempt)
            return .startAttempt(lastAttempt, fromStart: fromStart)
        }

        private mutating func fail(_ error: DownloadError) -> Action {
            state = .failed(error)
            return .becomeFailed(error)
        }
    }
}
