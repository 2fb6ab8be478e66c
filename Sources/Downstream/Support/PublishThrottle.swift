import Dispatch

/// Spaces publications at least `interval` apart, and makes sure the last value of a burst is
/// published (a trailing publication) rather than held back until the next change.
struct PublishThrottle: Sendable {
    enum Decision: Equatable {
        /// Publish now.
        case publish
        /// Publish in `delay` (schedule a trailing publication).
        case schedule(Duration)
        /// A trailing publication is scheduled already: nothing to do.
        case wait
    }

    let interval: Duration
    private var lastPublish: ContinuousClock.Instant?
    private var isTrailingScheduled = false

    init(interval: Duration) {
        self.interval = interval
    }

    /// A value changed at `now`.
    mutating func decide(at now: ContinuousClock.Instant) -> Decision {
        guard let lastPublish, lastPublish.duration(to: now) < interval else { return .publish }
        guard !isTrailingScheduled else { return .wait }
        isTrailingScheduled = true
        return .schedule(interval - lastPublish.duration(to: now))
    }

    mutating func published(at now: ContinuousClock.Instant) {
        lastPublish = now
    }

    /// The scheduled trailing publication is due.
    mutating func trailingIsDue() {
        isTrailingScheduled = false
    }

    /// Runs `body` after `delay` on a global queue.
    static func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval, execute: body)
    }
}
