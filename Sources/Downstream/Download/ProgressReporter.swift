import Dispatch

/// Turns the byte counts of a download into coalesced ``DownloadProgress`` values.
///
/// Called for every chunk on the session's delegate queue, so the common path is one uncontended
/// lock and a clock read. A value is published at most once per `interval`; when chunks stop
/// arriving between two slots, a trailing publish makes sure the last count is not held back.
/// Publishing never waits for consumers (see ``Broadcast``).
final class ProgressReporter: Sendable {
    private struct State {
        var bytesReceived: Int64 = 0
        var expectedBytes: Int64?
        var lastPublish: ContinuousClock.Instant?
        var lastPublishedBytes: Int64 = 0
        var bytesPerSecond: Double = 0
        var trailingPublishScheduled = false
    }

    let broadcast = Broadcast<DownloadProgress>(replayLimit: 1)
    private let interval: Duration
    private let clock = ContinuousClock()
    private let state = Locked(State())

    init(interval: Duration, bytesReceived: Int64 = 0, expectedBytes: Int64? = nil) {
        self.interval = interval
        state.withLock { state in
            state.bytesReceived = bytesReceived
            state.expectedBytes = expectedBytes
            state.lastPublishedBytes = bytesReceived
        }
        broadcast.publish(DownloadProgress(bytesReceived: bytesReceived, expectedBytes: expectedBytes))
    }

    var current: DownloadProgress {
        state.withLock {
            DownloadProgress(
                bytesReceived: $0.bytesReceived, expectedBytes: $0.expectedBytes, bytesPerSecond: $0.bytesPerSecond)
        }
    }

    /// A response was accepted: the file has `bytesReceived` bytes, of `expectedBytes`.
    func begin(bytesReceived: Int64, expectedBytes: Int64?) {
        state.withLock { state in
            state.bytesReceived = bytesReceived
            state.expectedBytes = expectedBytes
            state.lastPublishedBytes = bytesReceived
            publish(&state, at: clock.now, measuringSpeed: false)
        }
    }

    /// The file now has `totalBytes` bytes (a system download task counts them itself), of
    /// `expectedBytes`.
    func update(totalBytes: Int64, expectedBytes: Int64?) {
        let delta = state.withLock { state -> Int64? in
            state.expectedBytes = expectedBytes ?? state.expectedBytes
            return totalBytes >= state.bytesReceived ? totalBytes - state.bytesReceived : nil
        }
        if let delta {
            add(Int(delta))
        } else {
            begin(bytesReceived: totalBytes, expectedBytes: expectedBytes)
        }
    }

    /// `count` more bytes arrived.
    func add(_ count: Int) {
        let delay: Duration? = state.withLock { state in
            state.bytesReceived += Int64(count)
            let now = clock.now
            guard let last = state.lastPublish else {
                publish(&state, at: now, measuringSpeed: false)
                return nil
            }
            let elapsed = last.duration(to: now)
            if elapsed >= interval {
                publish(&state, at: now, measuringSpeed: true)
                return nil
            }
            guard !state.trailingPublishScheduled else { return nil }
            state.trailingPublishScheduled = true
            return interval - elapsed
        }
        if let delay {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval) { [weak self] in
                self?.publishTrailing()
            }
        }
    }

    /// Publishes the current count with no speed (the download stopped) and ends the
    /// subscriptions when `finishing`.
    func stop(finishing: Bool) {
        state.withLock { state in
            state.bytesPerSecond = 0
            publish(&state, at: clock.now, measuringSpeed: false)
        }
        if finishing {
            broadcast.finish()
        }
    }

    /// Accepts subscribers again for a new run of the download.
    func reopen() {
        broadcast.reopen()
    }

    private func publishTrailing() {
        state.withLock { state in
            state.trailingPublishScheduled = false
            guard state.bytesReceived != state.lastPublishedBytes else { return }
            publish(&state, at: clock.now, measuringSpeed: true)
        }
    }

    private func publish(_ state: inout State, at now: ContinuousClock.Instant, measuringSpeed: Bool) {
        if measuringSpeed, let last = state.lastPublish {
            let seconds = last.duration(to: now).inSeconds
            if seconds > 0 {
                let sample = Double(state.bytesReceived - state.lastPublishedBytes) / seconds
                state.bytesPerSecond = state.bytesPerSecond == 0 ? sample : 0.7 * state.bytesPerSecond + 0.3 * sample
            }
        }
        state.lastPublish = now
        state.lastPublishedBytes = state.bytesReceived
        broadcast.publish(
            DownloadProgress(
                bytesReceived: state.bytesReceived, expectedBytes: state.expectedBytes,
                bytesPerSecond: max(0, state.bytesPerSecond)))
    }
}
