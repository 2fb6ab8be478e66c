import Foundation

/// A download's validators and response handlers, added from any thread without waiting for
/// the download's actor.
///
/// Handlers run one after the other, in the order they were added, each awaited, once the
/// download ends; a handler added after the end runs at once (after those before it). Each
/// handler runs once.
final class ResponseChain: Sendable {
    /// Checks the response and the complete file before delivery; throws to refuse it.
    typealias Validation = @Sendable (ServerResponse, URL) async throws -> Void
    typealias Handler = @Sendable (DownloadResponse) async -> Void

    private struct State {
        var validations: [Validation] = []
        var handlers: [Handler] = []
        /// How the download ended, until it runs again.
        var outcome: DownloadResponse?
        /// Whether a task runs the handlers now.
        var isRunning = false
    }

    private let state = Locked(State())

    var validations: [Validation] {
        state.withLock { $0.validations }
    }

    func add(_ validation: @escaping Validation) {
        state.withLock { $0.validations.append(validation) }
    }

    func add(_ handler: @escaping Handler) {
        state.withLock { $0.handlers.append(handler) }
        runHandlersIfEnded()
    }

    /// The download ended: its handlers run.
    func ended(_ outcome: DownloadResponse) {
        state.withLock { $0.outcome = outcome }
        runHandlersIfEnded()
    }

    /// The download runs again: handlers added from now on wait for its next end.
    func reopen() {
        state.withLock { $0.outcome = nil }
    }

    private func runHandlersIfEnded() {
        let starts = state.withLock { state in
            guard state.outcome != nil, !state.isRunning, !state.handlers.isEmpty else { return false }
            state.isRunning = true
            return true
        }
        guard starts else { return }
        Task { [self] in
            while let (handler, outcome) = nextHandler() {
                await handler(outcome)
            }
        }
    }

    /// Takes the next handler to run, or ends the run if there is none.
    private func nextHandler() -> (Handler, DownloadResponse)? {
        state.withLock { state in
            guard let outcome = state.outcome, !state.handlers.isEmpty else {
                state.isRunning = false
                return nil
            }
            return (state.handlers.removeFirst(), outcome)
        }
    }
}
