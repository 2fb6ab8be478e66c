/// A file's speed as `dl` shows it: the bytes received over the last ``window`` of the run's
/// time, measured when progress comes and on every tick, so that the bar, the dots and the JSON
/// lines say the speed of the same moment, on the run's clock. It falls to 0 within a window of
/// the last byte, and the time remaining goes with it. (The library's speed falls too, but on its
/// own publications, about two seconds after the last byte.)
struct SpeedWindow: Equatable {
    /// The time the speed is measured over.
    var window = Duration.seconds(2)
    /// The bytes received at each time measured, oldest first: the newest at least a window old,
    /// and those after it.
    private var samples: [Sample] = []

    private struct Sample: Equatable {
        var time: Duration
        var bytes: Int64
    }

    /// The file had `bytes` at `time` (since the run started); fewer than before starts over (the
    /// download restarted from its first byte).
    mutating func record(_ bytes: Int64, at time: Duration) {
        if let last = samples.last, bytes < last.bytes || time < last.time {
            samples = []
        }
        if let last = samples.last, last.time == time {
            samples[samples.count - 1].bytes = bytes
        } else {
            samples.append(Sample(time: time, bytes: bytes))
        }
        // The anchor: the newest sample at or before the window's start; older ones go.
        while samples.count > 1, samples[1].time <= time - window {
            samples.removeFirst()
        }
    }

    /// Bytes per second at `time`: those received since the window's start (or the first sample,
    /// when it is younger) over the time since; 0 when no byte came for a window.
    func bytesPerSecond(at time: Duration) -> Double {
        guard let last = samples.last else { return 0 }
        // The newest sample at or before the window's start, else the oldest.
        let anchor = samples.last { $0.time <= time - window } ?? samples[0]
        let seconds = Format.seconds(time - anchor.time)
        guard seconds > 0 else { return 0 }
        return Double(last.bytes - anchor.bytes) / seconds
    }
}

extension JobStatus {
    /// Measures a running download's speed at `time` (since the run started) from its bytes, and
    /// shows it in ``progress``, with the time remaining at that speed (none at 0 B/s).
    mutating func measureSpeed(at time: Duration) {
        guard phase == .running, var progress else { return }
        speed.record(progress.bytesReceived, at: time)
        progress.bytesPerSecond = speed.bytesPerSecond(at: time)
        progress.estimatedTimeRemaining = progress.expectedBytes.flatMap { expected in
            progress.bytesPerSecond > 0
                ? .seconds(Double(max(0, expected - progress.bytesReceived)) / progress.bytesPerSecond) : nil
        }
        self.progress = progress
    }
}
