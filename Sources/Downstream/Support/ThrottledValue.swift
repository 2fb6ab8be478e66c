import Dispatch

/// A value under a lock whose changes are published at most once per `interval`: a change
/// publishes at once when the last publication is at least `interval` old; otherwise one trailing
/// publication is scheduled for the end of the interval (up to a quarter interval late), so that
/// the last change of a burst is never held back until the next one (on the clock's timers:
/// ``ClockReadings``).
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

    /// - Parameters:
    ///   - clock: the clock of the interval; `publish` is given its reading.
    init(
        _ value: Value, interval: Duration, clock: ClockReadings = .continuous,
        publish: @escaping @Sendable (inout Value, Duration) -> Publication,
        deliver: @escaping @Sendable (Publication) -> Void = { _ in }
    ) {
        state = Locked(State(value: value, throttle: Throttle(interval: interval)))
        self.clock = clock
        trailingTolerance = interval / 4
        self.publish = publish
        self.deliver = deliver
    }

    /// Changes the value with `body`, then publishes it if the interval allows, or makes sure a
    /// trailing publication follows.
    func change(_ body: (inout Value) -> Void) {
        let (publication, trailing) = state.withLock { state -> (Publication?, (Duration, Int)?) in
            body(&state.value)
            let now = clock.now()
            switch state.throttle.decide(at: now) {
            case .publish:
                state.throttle.published(at: now)
                return (publish(&state.value, now), nil)
            case .schedule(let delay, let trailing):
                return (nil, (now + delay, trailing))
            case .wait:
                return (nil, nil)
            }
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
        let publication = state.withLock { state in
            let now = clock.now()
            state.throttle.published(at: now)
            state.throttle.cancelTrailing()
            return body(&state.value, now)
        }
        deliver(publication)
    }

    /// Reads or changes the value without publishing it.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        state.withLock { body(&$0.value) }
    }

    private func publishTrailing(_ trailing: Int) {
        let publication = state.withLock { state -> Publication? in
            guard state.throttle.trailingIsDue(trailing) else { return nil }
            let now = clock.now()
            state.throttle.published(at: now)
            return publish(&state.value, now)
        }
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
