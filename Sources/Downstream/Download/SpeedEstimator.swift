import Foundation

/// A download's speed, smoothed: an exponential moving average over time, so that it follows a
/// real change in a few seconds without jumping with every burst of bytes.
///
/// Each sample weighs `1 - exp(-Δt / timeConstant)`: samples close together move the estimate
/// little, and how often samples come does not change how fast it follows.
struct SpeedEstimator: Sendable {
    /// Seconds for the estimate to move about two thirds of the way to a new steady speed.
    var timeConstant = 2.0
    private(set) var bytesPerSecond: Double = 0
    private var last: (bytes: Int64, seconds: Double)?
    private var hasEstimate = false

    /// Counts from `bytes` at `seconds` on (a request started from there), keeping the estimate.
    mutating func restart(at bytes: Int64, seconds: Double) {
        last = (bytes, seconds)
    }

    /// The download had `bytes` at `seconds`.
    mutating func sample(_ bytes: Int64, at seconds: Double) {
        guard let last else {
            self.last = (bytes, seconds)
            return
        }
        let elapsed = seconds - last.seconds
        guard elapsed > 0 else { return }
        let rate = max(0, Double(bytes - last.bytes) / elapsed)
        if hasEstimate {
            bytesPerSecond += (1 - exp(-elapsed / timeConstant)) * (rate - bytesPerSecond)
        } else {
            bytesPerSecond = rate
            hasEstimate = true
        }
        self.last = (bytes, seconds)
    }

    /// Nothing moves any more (paused, waiting, ended).
    mutating func stop() {
        bytesPerSecond = 0
        last = nil
        hasEstimate = false
    }

    /// The time to receive the rest at the current speed, when both are known.
    func timeRemaining(received: Int64, expected: Int64?) -> Duration? {
        guard let expected, bytesPerSecond > 0 else { return nil }
        return .seconds(Double(max(0, expected - received)) / bytesPerSecond)
    }
}
