/// A clock as the library's timers read it (the manager's clock,
/// ``DownloadManager/Configuration-swift.struct/clock``): the time since the readings were made,
/// and an action run at a time on it.
///
/// On the continuous clock (the default) actions run on the ``TimerThread``, not in Swift's
/// concurrency pool: a URLSession transfer that waits for one holds every URLSession call of the
/// process, and pool threads making such calls would then wait for the timer that frees them. On
/// another clock (a test's manual one) each action runs in a task that sleeps on that clock.
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
        return ClockReadings(now: now) { deadline, _, action in
            Task {
                try? await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
                action()
            }
        }
    }
}
