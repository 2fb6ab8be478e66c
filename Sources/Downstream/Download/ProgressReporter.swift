/// Turns the byte counts of a download into coalesced ``DownloadProgress`` values.
///
/// Called for every chunk on the transport's thread (libcurl's, or a URL session's delegate
/// queue), so the common path is one uncontended lock and a clock read. A value is published at
/// most once per `interval`, with a trailing publish when chunks stop arriving between two slots,
/// and again each interval while the speed falls after the last one, until it is 0 (a stall: see
/// ``ThrottledValue``). Publishing never
/// waits for consumers (see ``Broadcast``). Every value also goes to `observe` (the manager), after
/// the lock is released, numbered so that a value that arrives after a newer one can be dropped.
///
/// A value type holding one reference: copies share the same count. (Thousands of downloads may
/// be queued: each costs one object here, not two.)
struct ProgressReporter: ProgressSink {
    private struct State: BroadcastOwner {
        var bytesReceived: Int64 = 0
        var expectedBytes: Int64?
        var speed = SpeedEstimator()
        /// The number of the latest value published.
        var sequence: UInt64 = 0
        /// The subscribers, and the latest value for new ones.
        var broadcast = BroadcastState<DownloadProgress>(replayLimit: 1)
    }

    private let state: ThrottledValue<State, Download.ProgressUpdate>

    /// - Parameter clock: the clock of the interval and of the speed (the manager's).
    init(
        interval: Duration, clock: ClockReadings = .continuous, bytesReceived: Int64 = 0, expectedBytes: Int64? = nil,
        observe: @escaping @Sendable (Download.ProgressUpdate) -> Void = { _ in }
    ) {
        var initial = State(bytesReceived: bytesReceived, expectedBytes: expectedBytes)
        initial.broadcast.publish(DownloadProgress(bytesReceived: bytesReceived, expectedBytes: expectedBytes))
        state = ThrottledValue(
            initial, interval: interval, clock: clock,
            publish: { state, now in
                state.speed.sample(state.bytesReceived, at: now.inSeconds)
                return Self.publish(&state)
            },
            deliver: observe,
            // A speed falls while no byte comes: published again until it is 0.
            changesWithTime: { $0.speed.bytesPerSecond > 0 })
    }

    /// A new subscription: the latest value, then the coalesced updates, until the end.
    func subscribe() -> AsyncStream<DownloadProgress> {
        state.subscribe()
    }

    var current: DownloadProgress {
        state.withLock { Self.progress(of: $0) }
    }

    /// The current value, numbered as the latest published: values published before it are older.
    var latest: Download.ProgressUpdate {
        state.withLock { Download.ProgressUpdate(progress: Self.progress(of: $0), sequence: $0.sequence) }
    }

    /// A response was accepted: the file has `bytesReceived` bytes, of `expectedBytes`.
    func begin(bytesReceived: Int64, expectedBytes: Int64?) {
        state.publishNow { state, now in
            state.bytesReceived = bytesReceived
            state.expectedBytes = expectedBytes
            state.speed.restart(at: bytesReceived, seconds: now.inSeconds)
            return Self.publish(&state)
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
            add(delta)
        } else {
            begin(bytesReceived: totalBytes, expectedBytes: expectedBytes)
        }
    }

    /// `count` more bytes arrived.
    func add(_ count: Int64) {
        state.change { $0.bytesReceived += count }
    }

    /// Publishes the current count with no speed (the download stopped) and ends the
    /// subscriptions when `finishing`.
    func stop(finishing: Bool) {
        state.publishNow { state, _ in
            state.speed.stop()
            return Self.publish(&state)
        }
        if finishing {
            state.finishBroadcast()
        }
    }

    /// Accepts subscribers again for a new run of the download.
    func reopen() {
        state.withLock { $0.broadcast.reopen() }
    }

    /// Publishes the current value to the subscribers (under the lock, so in order) and numbers
    /// it for the observer.
    private static func publish(_ state: inout State) -> Download.ProgressUpdate {
        let progress = progress(of: state)
        state.broadcast.publish(progress)
        state.sequence += 1
        return Download.ProgressUpdate(progress: progress, sequence: state.sequence)
    }

    private static func progress(of state: State) -> DownloadProgress {
        DownloadProgress(
            bytesReceived: state.bytesReceived, expectedBytes: state.expectedBytes,
            bytesPerSecond: state.speed.bytesPerSecond,
            estimatedTimeRemaining: state.speed.timeRemaining(
                received: state.bytesReceived, expected: state.expectedBytes))
    }
}
