@testable import Downstream
import Foundation

/// A clock that moves only when a test advances it (or, told to, as soon as something waits on
/// it), and tells when something sleeps on it.
///
/// The library's timers run on it as actions it runs itself (``SelfSchedulingClock``), on a queue
/// of its own: a URLSession transfer on Linux that waits for one holds every URLSession of the
/// process, and must not also wait for a thread of Swift's concurrency pool.
final class ManualClock: Clock, SelfSchedulingClock, @unchecked Sendable {
    // Safe: `current`, `sleepers`, `actions` and `advancesOnItsOwn` are only touched while `lock`
    // is held.
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Action {
        var deadline: Instant
        var action: @Sendable () -> Void
    }

    /// What moving the clock woke.
    private struct Due {
        var sleepers: [Sleeper] = []
        var actions: [@Sendable () -> Void] = []
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: Sleeper] = [:]
    private var actions: [Action] = []
    private var advancesOnItsOwn = false
    private var waitHandler: (@Sendable (Duration) -> Void)?
    private let actionQueue = DispatchQueue(label: "ManualClock.actions")
    private let sleepStarts: AsyncStream<Duration>.Continuation
    /// How long each sleep or action's wait that starts is for, as it starts (none while the
    /// clock advances on its own).
    let sleeps: AsyncStream<Duration>

    init() {
        (sleeps, sleepStarts) = AsyncStream<Duration>.makeStream()
    }

    var now: Instant {
        lock.withLock { current }
    }

    var minimumResolution: Duration { .zero }

    /// How many actions wait for their time.
    var scheduledActions: Int {
        lock.withLock { actions.count }
    }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled before it parked: the cancellation handler found no sleeper to wake.
                let (isDue, isCancelled, length, due) = lock.withLock { () -> (Bool, Bool, Duration, Due) in
                    let length = current.duration(to: deadline)
                    if deadline <= current { return (true, false, length, Due()) }
                    if Task.isCancelled { return (false, true, length, Due()) }
                    if advancesOnItsOwn { return (true, false, length, move(to: deadline)) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, false, length, Due())
                }
                wake(due)
                if isDue {
                    continuation.resume()
                    return
                }
                if isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                tellWait(length)
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    func run(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        let (due, waits) = lock.withLock { () -> (Due, Bool) in
            let deadline = current.advanced(by: delay)
            if delay <= .zero { return (Due(actions: [action]), false) }
            actions.append(Action(deadline: deadline, action: action))
            return advancesOnItsOwn ? (move(to: deadline), false) : (Due(), true)
        }
        wake(due)
        if waits { tellWait(delay) }
    }

    /// Calls `handler` with the length of each wait that starts from now on, on the clock's queue
    /// (not a task of the pool: a bandwidth limit's wait holds every URLSession of a Linux
    /// process, ``ManualClock``).
    func whenWaiting(_ handler: @escaping @Sendable (Duration) -> Void) {
        lock.withLock { waitHandler = handler }
    }

    private func tellWait(_ length: Duration) {
        sleepStarts.yield(length)
        if let handler = lock.withLock({ waitHandler }) {
            actionQueue.async { handler(length) }
        }
    }

    /// Moves the clock on and wakes the sleepers and runs the actions whose time came.
    func advance(by duration: Duration) {
        wake(lock.withLock { move(to: current.advanced(by: duration)) })
    }

    /// From now on (or until called with `false`), whatever waits on the clock moves it to the
    /// end of its wait at once: the clock's time is then the sum of the waits that did not
    /// overlap. Whatever waits already is due at once.
    func advanceOnItsOwn(_ advances: Bool = true) {
        wake(
            lock.withLock {
                advancesOnItsOwn = advances
                let latest = (sleepers.values.map(\.deadline) + actions.map(\.deadline)).max()
                guard advances, let latest, current < latest else { return Due() }
                return move(to: latest)
            })
    }

    /// With `lock` held: the clock reads `instant` (if later); takes what is due.
    private func move(to instant: Instant) -> Due {
        current = max(current, instant)
        var due = Due()
        for (id, sleeper) in sleepers where sleeper.deadline <= current {
            sleepers[id] = nil
            due.sleepers.append(sleeper)
        }
        let (ready, waiting) = (
            actions.filter { $0.deadline <= current }, actions.filter { $0.deadline > current }
        )
        actions = waiting
        due.actions = ready.sorted { $0.deadline < $1.deadline }.map(\.action)
        return due
    }

    /// Without `lock`: resumes the sleepers and runs the actions, in order, on the clock's queue.
    private func wake(_ due: Due) {
        for sleeper in due.sleepers { sleeper.continuation.resume() }
        for action in due.actions { actionQueue.async(execute: action) }
    }
}

extension DownloadManager.Configuration {
    /// Runs the manager's timers on `clock`, a test's, with progress published at once (an
    /// interval of zero): the clock's sleeps are then those of the policies the test is about
    /// (retries, waits for the network, bandwidth limits), never a progress throttle's.
    mutating func run(on clock: ManualClock) {
        self.clock = clock
        progress.interval = .zero
    }
}
