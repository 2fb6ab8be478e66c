import Foundation

/// Counts the responses in progress (from a request received to its response's last byte
/// written) and remembers the most at once. One server has its own; servers that act as several
/// hosts of one test can also share one.
public final class InFlightGauge: @unchecked Sendable {
    // Safe: `current` and `highest` are only touched while `lock` is held.
    private let lock = NSLock()
    private var current = 0
    private var highest = 0

    public init() {}

    /// The responses in progress now.
    public var inFlight: Int {
        lock.withLock { current }
    }

    /// The most responses that were in progress at once.
    public var maximum: Int {
        lock.withLock { highest }
    }

    func enter() {
        lock.withLock {
            current += 1
            highest = max(highest, current)
        }
    }

    func leave() {
        lock.withLock { current -= 1 }
    }
}
