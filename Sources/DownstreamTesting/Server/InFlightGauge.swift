import Foundation

/// Counts the responses in progress (from a request received to just before its response's
/// last bytes are sent, so that a client cannot have seen it end while it is counted) and
/// remembers the most at once.
///
/// Each ``TestServer`` has its own (``TestServer/maximumConcurrentResponses``). Servers that act
/// as the hosts of one system can share one too, to check a limit over all hosts:
///
/// ```swift
/// let gauge = InFlightGauge()
/// let hosts = try (0..<3).map { _ in try TestServer(sharedGauge: gauge) }
/// // ... start downloads from every host, at most 4 at once ...
/// await gauge.waitForInFlight(4)
/// #expect(gauge.maximum == 4)
/// ```
public final class InFlightGauge: @unchecked Sendable {
    // Safe: `current` and `highest` are only touched while `lock` is held; `peaks` is Sendable.
    private let lock = NSLock()
    private var current = 0
    private var highest = 0
    /// One element for each new highest count.
    private let peaks = ArrivalLog<Void>()

    /// Creates a gauge with nothing in progress.
    public init() {}

    /// The responses in progress now.
    public var inFlight: Int {
        lock.withLock { current }
    }

    /// The most responses that were in progress at once.
    public var maximum: Int {
        lock.withLock { highest }
    }

    /// Returns once at least `count` responses are, or have been, in progress at once (at once if
    /// ``maximum`` reached `count` already), without polling.
    ///
    /// Also returns when `timeout` passes or the task is cancelled, so that a failing test ends
    /// instead of hanging.
    ///
    /// - Returns: Whether `count` responses were in progress at once.
    @discardableResult
    public func waitForInFlight(_ count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        guard count > 0 else { return true }
        return await peaks.element(at: count - 1, timeout: timeout) != nil
    }

    func enter() {
        let isPeak = lock.withLock {
            current += 1
            guard current > highest else { return false }
            highest = current
            return true
        }
        if isPeak {
            peaks.append(())
        }
    }

    func leave() {
        lock.withLock { current -= 1 }
    }
}
