import Foundation

/// A download's speed: the bytes received over the last ``window`` seconds of its current
/// request, divided by the time they took.
///
/// Measured between two real samples (the newest, and the newest at least a window older, or the
/// start of the request), it is exact on a steady link once a window has passed, whatever the
/// pace of the samples or the size of the bursts bytes come in, and it never says more than the
/// bytes received allow: a first burst (from the buffers between the server and us) counts for
/// what it is, the bytes since the request started over the time since, and is out of the
/// measure a window later. At a constant rate the time remaining only falls.
struct SpeedEstimator: Sendable {
    /// The seconds the speed is measured over.
    var window = 2.0
    private(set) var bytesPerSecond: Double = 0
    /// The request's samples still needed: the newest one at least a window older than the
    /// newest sample (or the request's start), and every one after it; `first` is where they
    /// begin.
    private var samples: [(bytes: Int64, seconds: Double)] = []
    private var first = 0

    /// Counts from `bytes` at `seconds` on (a request started from there), keeping the estimate
    /// until the new request's first sample.
    mutating func restart(at bytes: Int64, seconds: Double) {
        samples = [(bytes, seconds)]
        first = 0
    }

    /// The download had `bytes` at `seconds`.
    mutating func sample(_ bytes: Int64, at seconds: Double) {
        guard let last = samples.last else {
            restart(at: bytes, seconds: seconds)
            return
        }
        guard seconds > last.seconds else {
            samples[samples.count - 1].bytes = max(last.bytes, bytes)
            return
        }
        samples.append((bytes, seconds))
        // The anchor: the newest sample at or before the window's start.
        while first + 1 < samples.count, samples[first + 1].seconds <= seconds - window {
            first += 1
        }
        if first > 64, first * 2 > samples.count {
            samples.removeFirst(first)
            first = 0
        }
        let anchor = samples[first]
        bytesPerSecond = max(0, Double(bytes - anchor.bytes) / (seconds - anchor.seconds))
    }

    /// Nothing moves any more (paused, waiting, ended).
    mutating func stop() {
        bytesPerSecond = 0
        samples = []
        first = 0
    }

    /// The time to receive the rest at the current speed, when both are known.
    func timeRemaining(received: Int64, expected: Int64?) -> Duration? {
        guard let expected, bytesPerSecond > 0 else { return nil }
        return .seconds(Double(max(0, expected - received)) / bytesPerSecond)
    }
}
