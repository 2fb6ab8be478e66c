import Foundation

/// Runs short timers' actions at their deadlines, on one thread of its own.
///
/// For the many timers of progress throttles (one per download that publishes faster than its
/// interval). `DispatchQueue.asyncAfter` costs each a wake-up of Dispatch's manager thread and a
/// timer source: measured, about a sixth of the CPU time of a 64 KiB download. Here a timer is
/// a sorted insertion under a lock, and the thread is woken only when a timer is due sooner than
/// the ones it waits for. A timer may allow some lateness (a tolerance): the thread then sleeps
/// until the first timer's latest time and runs every timer due by then, in the order of their
/// deadlines, so that the trailing progress timers of many small downloads cost one wake-up, not
/// one each. Actions run one after another on that thread: keep them short.
final class TimerThread: Sendable {
    /// The process's timer thread, started at its first timer.
    static let shared = TimerThread()

    private struct Timer {
        let deadline: ContinuousClock.Instant
        /// When the timer may run at the latest: its deadline and its tolerance.
        let latest: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    private struct State {
        /// Latest first: the next timer due is the last.
        var timers: [Timer] = []
        var isStarted = false
        /// When the thread wakes next, if it sleeps with a deadline.
        var wakeUp: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Runs `action` on the timer thread once `delay` has passed.
    /// - Parameter tolerance: how much later than `delay` the action may run, so that one wake-up
    ///   runs the timers due about then together.
    func schedule(after delay: Duration, tolerance: Duration = .zero, _ action: @escaping @Sendable () -> Void) {
        let deadline = ContinuousClock.now + delay
        let latest = deadline + tolerance
        let (starts, wakes) = state.withLock { state -> (Bool, Bool) in
            // Timers come mostly in the order of their deadlines: the search is short.
            let index = state.timers.firstIndex { $0.deadline <= deadline } ?? state.timers.endIndex
            state.timers.insert(Timer(deadline: deadline, latest: latest, action: action), at: index)
            let starts = !state.isStarted
            state.isStarted = true
            let wakes = !starts && state.wakeUp.map { latest < $0 } ?? true
            if wakes { state.wakeUp = latest }
            return (starts, wakes)
        }
        if starts {
            let thread = Thread { [self] in run() }
            thread.name = "Downstream.timers"
            thread.start()
        } else if wakes {
            wake.signal()
        }
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([Timer], ContinuousClock.Instant?) in
                let firstNotDue = state.timers.lastIndex { $0.deadline > now }.map { $0 + 1 } ?? 0
                let due = state.timers[firstNotDue...].reversed()
                state.timers.removeSubrange(firstNotDue...)
                state.wakeUp = state.timers.lazy.map(\.latest).min()
                return (Array(due), state.wakeUp)
            }
            for timer in due { timer.action() }
            guard due.isEmpty else { continue }
            if let next {
                _ = wake.wait(timeout: .now() + now.duration(to: next).dispatchInterval)
            } else {
                wake.wait()
            }
        }
    }
}
