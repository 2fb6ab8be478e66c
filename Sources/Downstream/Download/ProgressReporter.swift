/// Turns the byte counts of a download into coalesced ``DownloadProgress`` values.
///
/// Called for every chunk on the session's delegate queue, so the common path is one uncontended
/// lock and a clock read. A value is published at most once per `interval`; when chunks stop
/// arriving between two slots, a trailing publish makes sure the last count is not held back.
/// Publishing never waits for consumers (see ``Broadcast``); every value also goes to `observe`
/// (the manager's and groups' totals), in order.
final class ProgressReporter: ProgressSink {
    private struct State: BroadcastOwner {
        var bytesReceived: Int64 = 0
        var expectedBytes: Int64?
        var throttle: PublishThrottle
        var speed = SpeedEstimator()
        /// The subscribers, and the latest value for new ones.
        var broadcast = BroadcastState<DownloadProgress>(replayLimit: 1)
    }

    private let clock = ContinuousClock()
    private let start = ContinuousClock.now
    private let state: Locked<State>
    private let observe: @Sendable (DownloadProgress) -> Void

    init(
        interval: Duration, bytesReceived: Int64 = 0, expectedBytes: Int64? = nil,
        observe: @escaping @Sendable (DownloadProgress) -> Void = { _ in }
    ) {
        self.observe = observe
        var initial = State(
            bytesReceived: bytesReceived, expectedBytes: expectedBytes, throttle: .init(interval: interval))
        initial.broadcast.publish(DownloadProgress(bytesReceived: bytesReceived, expectedBytes: expectedBytes))
        state = Locked(initial)
    }

    /// A new subscription: the latest value, then the coalesced updates, until the end.
    func subscribe() -> AsyncStream<DownloadProgress> {
        state.subscribe()
    }

    var current: DownloadProgress {
        state.withLock { progress(of: $0) }
    }

    /// A response was accepted: the file has `bytesReceived` bytes, of `expectedBytes`.
    func begin(bytesReceived: Int64, expectedBytes: Int64?) {
        state.withLock { state in
            state.bytesReceived = bytesReceived
            state.expectedBytes = expectedBytes
            state.speed.restart(at: bytesReceived, seconds: seconds(clock.now))
            publish(&state, at: clock.now)
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
            switch state.throttle.decide(at: now) {
            case .publish:
                state.speed.sample(state.bytesReceived, at: seconds(now))
                publish(&state, at: now)
                return nil
            case .schedule(let delay):
                return delay
            case .wait:
                return nil
            }
        }
        if let delay {
            PublishThrottle.schedule(after: delay) { [weak self] in
                self?.publishTrailing()
            }
        }
    }

    /// Publishes the current count with no speed (the download stopped) and ends the
    /// subscriptions when `finishing`.
    func stop(finishing: Bool) {
        state.withLock { state in
            state.speed.stop()
            publish(&state, at: clock.now)
        }
        if finishing {
            state.finishBroadcast()
        }
    }

    /// Accepts subscribers again for a new run of the download.
    func reopen() {
        state.withLock { $0.broadcast.reopen() }
    }

    private func publishTrailing() {
        state.withLock { state in
            state.throttle.trailingIsDue()
            let now = clock.now
            state.speed.sample(state.bytesReceived, at: seconds(now))
            publish(&state, at: now)
        }
    }

    private func publish(_ state: inout State, at now: ContinuousClock.Instant) {
        state.throttle.published(at: now)
        let progress = progress(of: state)
        state.broadcast.publish(progress)
        observe(progress)
    }

    private func progress(of state: State) -> DownloadProgress {
        DownloadProgress(
            bytesReceived: state.bytesReceived, expectedBytes: state.expectedBytes,
            bytesPerSecond: state.speed.bytesPerSecond,
            estimatedTimeRemaining: state.speed.timeRemaining(
                received: state.bytesReceived, expected: state.expectedBytes))
    }

    private func seconds(_ instant: ContinuousClock.Instant) -> Double {
        start.duration(to: instant).inSeconds
    }
}
