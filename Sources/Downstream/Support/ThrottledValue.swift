import Dispatch

/// A value under a lock whose changes are published at most once per `interval`: a change
/// publishes at once when the last publication is at least `interval` old; otherwise one trailing
/// publication is scheduled for the end of the interval (up to a quarter interval late), so that
/// the last change of a burst is never held back until the next one (on the clock's timers:
/// ``ClockReadings``).
///
/// A value whose publication depends on the time as well (a speed, which falls while no byte
/// comes: `changesWithTime`) is published again when it stopped changing, once per interval (at
/// least ``settlingInterval``) for as long as `changesWithTime` says so: a stalled download's
/// speed falls to 0 for its watchers instead of staying what it was. One timer at a time, none
/// once the value is settled, and none with an interval of zero.
///
/// A publication has two halves. `publish` runs under the lock, in the order of the publications:
/// it may send the value to a broadcast kept in it (see ``BroadcastOwner``) and returns what is
/// handed on. `deliver` hands that on after the lock is released, so that no other code runs under
/// it; two threads publishing at once (a change and the trailing timer) may deliver in either
/// order, so what `publish` returns must say which is newer when that matters.
final class ThrottledValue<Value, Publication>: Sendable {
    fileprivate struct State {
        var value: Value
        var throttle: Throttle
    }

    private let state: Locked<State>
    private let clock: ClockReadings
    /// How late a trailing publication may be.
    private let trailingTolerance: Duration
    private let publish: @Sendable (inout Value, Duration) -> Publication
    private let deliver: @Sendable (Publication) -> Void
    /// Whether the value, unchanged, would publish differently later; nil: never.
    private let changesWithTime: (@Sendable (Value) -> Bool)?

    /// The shortest time between two publications of a value that stopped changing.
    static var settlingInterval: Duration { .milliseconds(250) }

    /// - Parameters:
    ///   - clock: the clock of the interval; `publish` is given its reading.
    ///   - changesWithTime: whether the value, left as it is, publishes differently later (then
    ///     it is published again until it does not).
    init(
        _ value: Value, interval: Duration, clock: ClockReadings = .continuous,
        publish: @escaping @Sendable (inout Value, Duration) -> Publication,
        deliver: @escaping @Sendable (Publication) -> Void = { _ in },
        changesWithTime: (@Sendable (Value) -> Bool)? = nil
    ) {
        state = Locked(State(value: value, throttle: Throttle(interval: interval)))
        self.clock = clock
        trailingTolerance = interval / 4
        self.publish = publish
        self.deliver = deliver
        self.changesWithTime = changesWithTime
    }

    /// Changes the value with `body`, then publishes it if the interval allows, or makes sure a
    /// trailing publication follows.
    func change(_ body: (inout Value) -> Void) {
        let (publication, trailing, settling) = state.withLock {
            state -> (Publication?, (Duration, Int)?, (Duration, Int)?) in
            body(&state.value)
            let now = clock.now()
            switch state.throttle.decide(at: now) {
            case .publish:
                state.throttle.published(at: now)
                let publication = publish(&state.value, now)
                return (publication, nil, settle(&state, at: now))
            case .schedule(let delay, let trailing):
                return (nil, (now + delay, trailing), nil)
            case .wait:
                return (nil, nil, nil)
            }
        }
        // Scheduled first: a publication delivered has its follow-up scheduled.
        if let settling {
            scheduleSettling(settling)
        }
        if let publication {
            deliver(publication)
        }
        if let (deadline, number) = trailing {
            // Late by up to a quarter interval: the timer thread then wakes once for the trailing
            // publications of many downloads, not once for each (most are needless by then).
            clock.schedule(deadline, tolerance: trailingTolerance) { [weak self] in
                self?.publishTrailing(number)
            }
        }
    }

    /// Changes the value and publishes it now, whatever the interval: `body` makes the publication
    /// itself (a start or a stop, which `publish` does not describe). A trailing publication
    /// scheduled before is not made: this one is newer (after a download's last value, nothing
    /// may follow).
    func publishNow(_ body: (inout Value, Duration) -> Publication) {
        let (publication, settling) = state.withLock { state in
            let now = clock.now()
            state.throttle.published(at: now)
            state.throttle.cancelTrailing()
            state.throttle.cancelSettling()
            let publication = body(&state.value, now)
            return (publication, settle(&state, at: now))
        }
        if let settling {
            scheduleSettling(settling)
        }
        deliver(publication)
    }

    /// Reads or changes the value without publishing it.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        state.withLock { body(&$0.value) }
    }

    private func publishTrailing(_ trailing: Int) {
        let (publication, settling) = state.withLock { state -> (Publication?, (Duration, Int)?) in
            guard state.throttle.trailingIsDue(trailing) else { return (nil, nil) }
            let now = clock.now()
            state.throttle.published(at: now)
            let publication = publish(&state.value, now)
            return (publication, settle(&state, at: now))
        }
        if let settling { scheduleSettling(settling) }
        if let publication { deliver(publication) }
    }

    /// After a publication at `now`: when the value changes with time and nothing else will
    /// publish it, the time and number of the settling publication to schedule.
    private func settle(_ state: inout State, at now: Duration) -> (Duration, Int)? {
        // (An interval of zero publishes changes only: a test's manual clock then has no timers
        // but the policies'.)
        guard let changesWithTime, state.throttle.interval > .zero, changesWithTime(state.value) else { return nil }
        return state.throttle.scheduleSettling(at: now + max(state.throttle.interval, Self.settlingInterval))
    }

    private func scheduleSettling(_ settling: (deadline: Duration, number: Int)) {
        clock.schedule(settling.deadline, tolerance: trailingTolerance) { [weak self] in
            self?.publishSettling(settling.number)
        }
    }

    /// Settling publication number `number` is due: publishes the value again, unless another
    /// publication came meanwhile (then it waits for an interval after that one).
    private func publishSettling(_ number: Int) {
        let (publication, settling) = state.withLock { state -> (Publication?, (Duration, Int)?) in
            guard state.throttle.settlingIsDue(number) else { return (nil, nil) }
            let now = clock.now()
            let wait = max(state.throttle.interval, Self.settlingInterval)
            if let last = state.throttle.lastPublication, now - last < wait {
                return (nil, state.throttle.scheduleSettling(at: last + wait))
            }
            state.throttle.published(at: now)
            let publication = publish(&state.value, now)
            return (publication, settle(&state, at: now))
        }
        if let settling { scheduleSettling(settling) }
        if let publication { deliver(publication) }
    }

    /// Spaces publications at least `interval` apart, and knows whether a trailing publication
    /// is scheduled.
    struct Throttle {
        enum Decision: Equatable {
            /// Publish now.
            case publish
            /// Publish in `delay` (schedule trailing publication number `trailing`).
            case schedule(Duration, trailing: Int)
            /// A trailing publication is scheduled already: nothing to do.
            case wait
        }

        let interval: Duration
        /// When the last publication was made, as the clock reads.
        private var lastPublish: Duration?
        private var isTrailingScheduled = false
        /// The number of the trailing publication scheduled last.
        private var trailing = 0
        private var isSettlingScheduled = false
        /// The number of the settling publication scheduled last.
        private var settling = 0

        init(interval: Duration) {
            self.interval = interval
        }

        /// A value changed at `now`.
        mutating func decide(at now: Duration) -> Decision {
            guard let lastPublish, now - lastPublish < interval else {
                // A publication now makes a trailing one scheduled before (and late) needless.
                isTrailingScheduled = false
                return .publish
            }
            guard !isTrailingScheduled else { return .wait }
            isTrailingScheduled = true
            trailing += 1
            return .schedule(interval - (now - lastPublish), trailing: trailing)
        }

        mutating func published(at now: Duration) {
            lastPublish = now
        }

        /// Trailing publication number `number` is due: whether it is still to be made (a
        /// publication made at once since it was scheduled makes it needless).
        mutating func trailingIsDue(_ number: Int) -> Bool {
            guard isTrailingScheduled, number == trailing else { return false }
            isTrailingScheduled = false
            return true
        }

        /// A publication was made at once: the scheduled trailing one is not needed.
        mutating func cancelTrailing() {
            isTrailingScheduled = false
        }

        /// When the last publication was made.
        var lastPublication: Duration? { lastPublish }

        /// A settling publication is wanted at `deadline`: its number, to schedule, unless one is
        /// scheduled already, or a trailing one will publish (and ask again).
        mutating func scheduleSettling(at deadline: Duration) -> (Duration, Int)? {
            guard !isSettlingScheduled, !isTrailingScheduled else { return nil }
            isSettlingScheduled = true
            settling += 1
            return (deadline, settling)
        }

        /// Settling publication number `number` is due: whether it is still to be made.
        mutating func settlingIsDue(_ number: Int) -> Bool {
            guard isSettlingScheduled, number == settling else { return false }
            isSettlingScheduled = false
            return true
        }

        /// A publication was made at once (a start, a stop): a settling one scheduled before is
        /// not made.
        mutating func cancelSettling() {
            isSettlingScheduled = false
            settling += 1
        }
    }
}

extension ThrottledValue where Value: BroadcastOwner {
    /// A new subscription to the broadcast kept in the value.
    func subscribe() -> AsyncStream<Value.Element> {
        state.subscribe()
    }

    /// Ends every subscription to the broadcast kept in the value.
    func finishBroadcast() {
        state.finishBroadcast()
    }
}

extension ThrottledValue.State: BroadcastOwner where Value: BroadcastOwner {
    var broadcast: BroadcastState<Value.Element> {
        get { value.broadcast }
        set { value.broadcast = newValue }
    }
}
