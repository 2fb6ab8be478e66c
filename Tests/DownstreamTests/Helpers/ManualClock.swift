@testable import Downstream
import Foundation

/// A clock that moves only when a test advances it, and tells when something sleeps on it.
final class ManualClock: Clock, @unchecked Sendable {
    // Safe: `current` and `sleepers` are only touched while `lock` is held.
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: Sleeper] = [:]
    private let sleepStarts: AsyncStream<Duration>.Continuation
    /// How long each sleep that starts is for, as it starts.
    let sleeps: AsyncStream<Duration>

    init() {
        (sleeps, sleepStarts) = AsyncStream<Duration>.makeStream()
    }

    var now: Instant {
        lock.withLock { current }
    }

    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled before it parked: the cancellation handler found no sleeper to wake.
                let (isDue, isCancelled, length) = lock.withLock { () -> (Bool, Bool, Duration) in
                    let length = current.duration(to: deadline)
                    if deadline <= current { return (true, false, length) }
                    if Task.isCancelled { return (false, true, length) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, false, length)
                }
                if isDue { continuation.resume() }
                if isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                sleepStarts.yield(length)
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on and wakes the sleepers whose time came.
    func advance(by duration: Duration) {
        let due = lock.withLock { () -> [Sleeper] in
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.value.deadline <= current }
            for id in due.keys { sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

extension DownloadManager.Configuration {
    /// Runs the manager's timers on `clock`, a test's, with progress published at once (an
    /// interval of zero): the clock's sleeps are then those of the policies the test is about
    /// (retries, waits for the network, bandwidth limits), never a progress throttle's.
    mutating func run(on clock: ManualClock) {
        self.clock = clock
        progress.interval = .zero
    }
}
