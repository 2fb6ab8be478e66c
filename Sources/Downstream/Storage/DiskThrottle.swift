import Foundation

/// What a simulated disk does to the writes of a partial file: it holds the writing thread as
/// long as that disk would. For tests and benchmarks of backpressure.
protocol DiskSimulation: Sendable {
    /// Accounts for a write of `bytes` that the real disk took, returning when the simulated disk
    /// would have.
    func account(_ bytes: Int)
}

/// A simulated slow disk, for tests and benchmarks of memory under backpressure.
///
/// ``account(_:)`` blocks the writing thread as long as the writes so far would have kept a disk
/// of `bytesPerSecond` busy, as a slow disk's `write` does. Time owed is carried over between
/// writes, so sleeping's coarse granularity does not change the average rate; an idle disk does
/// not bank more than 10 ms of credit.
package final class DiskThrottle: DiskSimulation {
    private let bytesPerSecond: Double
    private let busyUntil = Locked<ContinuousClock.Instant?>(nil)

    /// A disk that writes `bytesPerSecond`.
    package init(bytesPerSecond: Int) {
        precondition(bytesPerSecond > 0)
        self.bytesPerSecond = Double(bytesPerSecond)
    }

    /// Accounts for a write of `bytes`, sleeping while the simulated disk is behind.
    package func account(_ bytes: Int) {
        guard bytes > 0 else { return }
        let now = ContinuousClock.now
        let wait = busyUntil.withLock { busyUntil -> Duration in
            let start = max(busyUntil ?? now, now - .milliseconds(10))
            let end = start + .seconds(Double(bytes) / bytesPerSecond)
            busyUntil = end
            return now.duration(to: end)
        }
        if wait > .milliseconds(1) {
            Thread.sleep(forTimeInterval: wait.inSeconds)
        }
    }
}
