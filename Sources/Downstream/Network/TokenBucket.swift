/// A rate of bytes per second, enforced on whole chunks: a chunk is taken whenever the bucket is
/// not in debt, and may put it in debt; the next one waits until the debt is paid. Over any
/// stretch of time the bytes taken are at most `rate × time + burst + one chunk`, whatever the
/// chunks' sizes, and a chunk larger than the burst never waits forever.
///
/// Pure: times are given, as durations since any fixed origin.
struct TokenBucket: Equatable, Sendable {
    /// Bytes per second.
    private(set) var rate: Int
    /// The most tokens an idle bucket holds: what may go at once after a pause.
    private(set) var burst: Int
    /// Bytes that may go now; below zero, a debt.
    private(set) var tokens: Double
    private var refilledAt: Duration

    /// A full bucket for `rate` bytes per second, at `now`. The burst is a tenth of a second's
    /// worth, at least 16 KiB (one chunk of either transport).
    init(rate: Int, at now: Duration) {
        self.rate = max(1, rate)
        burst = Self.burst(for: self.rate)
        tokens = Double(burst)
        refilledAt = now
    }

    /// Takes `count` bytes at `now` if the bucket is not in debt; otherwise returns how long
    /// until it is not.
    mutating func take(_ count: Int, at now: Duration) -> Duration? {
        if let wait = wait(at: now) { return wait }
        tokens -= Double(count)
        return nil
    }

    /// How long until a chunk may be taken, or nil if one may now.
    mutating func wait(at now: Duration) -> Duration? {
        refill(at: now)
        guard tokens < 0 else { return nil }
        return .nanoseconds(Int64((-tokens / Double(rate) * 1e9).rounded(.up)))
    }

    /// A new rate from `now` on; the tokens (or debt) so far are kept, up to the new burst.
    mutating func change(rate newRate: Int, at now: Duration) {
        refill(at: now)
        rate = max(1, newRate)
        burst = Self.burst(for: rate)
        tokens = min(tokens, Double(burst))
    }

    private mutating func refill(at now: Duration) {
        guard now > refilledAt else { return }
        let elapsed =
            Double((now - refilledAt).components.seconds)
            + Double((now - refilledAt).components.attoseconds) / 1e18
        tokens = min(Double(burst), tokens + elapsed * Double(rate))
        refilledAt = now
    }

    private static func burst(for rate: Int) -> Int {
        max(rate / 10, 16 << 10)
    }
}
