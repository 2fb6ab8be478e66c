/// When to call the system's completion handler for background session events.
///
/// iOS relaunches (or wakes) an app for a background session's events and hands it a completion
/// handler; the app must call it once it has handled them, and then may be suspended at once. So
/// the handler is called exactly once, when three things have happened, in whatever order:
/// the handler arrived, the session said it delivered all events (`urlSessionDidFinishEvents`),
/// and every finished download's file is in place, its record written and its completion
/// handlers run.
struct BackgroundEventsMachine<Handler> {
    private var handlers: [Handler] = []
    private var sessionFinishedEvents = false
    private(set) var pendingWork = 0

    /// The app handed over a completion handler. Returns the handlers to call now.
    mutating func handlerArrived(_ handler: Handler) -> [Handler] {
        handlers.append(handler)
        return takeIfReady()
    }

    /// The session delivered all its events.
    mutating func sessionDidFinishEvents() -> [Handler] {
        sessionFinishedEvents = true
        return takeIfReady()
    }

    /// A finished download started its last steps (moving its file, its completion handlers).
    mutating func workBegan() {
        pendingWork += 1
    }

    /// A finished download ended its last steps.
    mutating func workEnded() -> [Handler] {
        pendingWork = max(0, pendingWork - 1)
        return takeIfReady()
    }

    private mutating func takeIfReady() -> [Handler] {
        guard sessionFinishedEvents, pendingWork == 0, !handlers.isEmpty else { return [] }
        // One batch of events is handled: the next wake starts afresh.
        sessionFinishedEvents = false
        defer { handlers = [] }
        return handlers
    }
}

/// What waits for a background session's events to be handled.
enum BackgroundEventsWaiter: Sendable {
    /// The system's completion handler: UIKit hands it to the app delegate, on the main actor, as
    /// a plain closure; it is called there.
    case completionHandler(MainActorClosure)
    /// A task (SwiftUI's background task) that goes on when the events are handled.
    case task(CheckedContinuation<Void, Never>)

    func resume() {
        switch self {
        case .completionHandler(let handler): Task { @MainActor in handler.call() }
        case .task(let continuation): continuation.resume()
        }
    }
}

/// ``BackgroundEventsMachine`` behind a lock; resumes the waiters after the lock is released.
final class BackgroundEvents: Sendable {
    private let machine = Locked(BackgroundEventsMachine<BackgroundEventsWaiter>())

    func waiterArrived(_ waiter: BackgroundEventsWaiter) {
        resume(machine.withLock { $0.handlerArrived(waiter) })
    }

    func sessionDidFinishEvents() {
        resume(machine.withLock { $0.sessionDidFinishEvents() })
    }

    func workBegan() {
        machine.withLock { $0.workBegan() }
    }

    func workEnded() {
        resume(machine.withLock { $0.workEnded() })
    }

    private func resume(_ waiters: [BackgroundEventsWaiter]) {
        for waiter in waiters {
            waiter.resume()
        }
    }
}
