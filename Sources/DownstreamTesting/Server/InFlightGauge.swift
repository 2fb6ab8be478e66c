import Foundation

/// Counts the responses in progress (from a request received to just before its response's
/// last bytes are sent, so that a client cannot have seen it end while it is counted) and
/// remembers the most at once. One server has its own; servers that act as several
/// hosts of one test can also share one.
public final class InFlightGauge: @unchecked Sendable {
    // Safe: `current` and `highest` are only touched while `lock` is held.
    private let lock = NSLock()
    private var current = 0
    private var highest = 0
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    /// The responses in progress now.
    public var inFlight: Int {
        lock.withLock { current }
    }

    /// The most responses that were in progress at once.
    public var maximum: Int {
        lock.withLock { highest }
    }

    /// Returns once at least `count` responses are in progress at once.
    public func waitForInFlight(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = lock.withLock {
                if current >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    func enter() {
        let reached = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            current += 1
            highest = max(highest, current)
            let reached = waiters.filter { $0.count <= current }.map(\.continuation)
            waiters.removeAll { $0.count <= current }
            return reached
        }
        reached.forEach { $0.resume() }
    }

    func leave() {
        lock.withLock { current -= 1 }
    }
}
