/// A clock as the library's timers read it (the manager's clock,
/// ``DownloadManager/Configuration-swift.struct/clock``): the time since the readings were made,
/// and an action run at a time on it.
///
/// On the continuous clock (the default) actions run on the ``TimerThread``, not in Swift's
/// concurrency pool: a URLSession transfer that waits for one holds every URLSession call of the
/// process, and pool threads making such calls would then wait for the timer that frees them. A
/// ``SelfSchedulingClock`` (a test's manual one) runs them itself; on any other clock each action
/// runs in a task that sleeps on that clock.
struct ClockReadings: Sendable {
    /// The time since the readings were made.
    let now: @Sendable () -> Duration
    /// Runs `action` once the clock reads `deadline` (a time as ``now`` gives it), and at the
    /// latest `tolerance` after it on the continuous clock.
    private let scheduleAction:
        @Sendable (_ deadline: Duration, _ tolerance: Duration, _ action: @escaping @Sendable () -> Void) -> Void

    /// The readings of the continuous clock.
    static let continuous = ClockReadings(ContinuousClock())

    init(_ clock: any Clock<Duration>) {
        self = Self.reading(clock)
    }

    private init(
        now: @escaping @Sendable () -> Duration,
        schedule: @escaping @Sendable (Duration, Duration, @escaping @Sendable () -> Void) -> Void
    ) {
        self.now = now
        self.scheduleAction = schedule
    }

    /// Runs `action` once the clock reads `deadline` (a time as ``now`` gives it).
    /// - Parameter tolerance: how much later it may run on the continuous clock, so that the
    ///   timer thread wakes once for the timers due about then.
    func schedule(_ deadline: Duration, tolerance: Duration = .zero, _ action: @escaping @Sendable () -> Void) {
        scheduleAction(deadline, tolerance, action)
    }

    private static func reading<C: Clock<Duration>>(_ clock: C) -> ClockReadings {
        let origin = clock.now
        let now: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        if C.self == ContinuousClock.self {
            return ClockReadings(now: now) { deadline, tolerance, action in
                TimerThread.shared.schedule(after: deadline - now(), tolerance: tolerance, action)
            }
        }
        if let selfScheduling = clock as? any SelfSchedulingClock {
            return ClockReadings(now: now) { deadline, _, action in
                selfScheduling.run(after: deadline - now(), action)
            }
        }
        return ClockReadings(now: now) { deadline, _, action in
            Task {
                try? await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
                action()
            }
        }
    }
}

/// A clock that runs actions at its times itself, without a task of Swift's concurrency pool: a
/// test's manual clock, whose actions run as the test moves it on. (Through a task, a bandwidth
/// limit's wait on such a clock held every URLSession of a Linux process until the pool, busy
/// with other tests, ran that task.)
protocol SelfSchedulingClock: Sendable {
    /// Runs `action` once the clock has moved `delay` on from its time now, off the caller's
    /// thread (the caller may hold a lock the action takes).
    func run(after delay: Duration, _ action: @escaping @Sendable () -> Void)
}
