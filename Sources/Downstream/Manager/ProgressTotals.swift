/// The live totals of several downloads (a manager's, or a group's): kept as the downloads'
/// progress and states change, in O(1) per change, and published as ``AggregateProgress`` values
/// coalesced like a download's progress (see ``ThrottledValue``).
final class ProgressTotals: Sendable {
    /// What one download contributes: only the figures the totals need (thousands are kept).
    private struct Entry {
        /// The sequence of the download's progress value counted: older ones are dropped.
        var sequence: UInt64
        var bytesReceived: Int64
        /// -1 when unknown.
        var expectedBytes: Int64
        /// In 32 bits (plenty for a speed), so that an entry takes 32 bytes, not 40. Added and
        /// taken away as the same value, so the sum stays exact.
        var bytesPerSecond: Float
        var state: DownloadState

        init(_ update: Download.ProgressUpdate, state: DownloadState) {
            self.state = state
            sequence = 0
            bytesReceived = 0
            expectedBytes = -1
            bytesPerSecond = 0
            set(update)
        }

        mutating func set(_ update: Download.ProgressUpdate) {
            let progress = update.progress
            sequence = update.sequence
            bytesReceived = progress.bytesReceived
            expectedBytes = progress.expectedBytes ?? -1
            bytesPerSecond = Float(progress.bytesPerSecond)
        }
    }

    private struct State: BroadcastOwner {
        var entries: [Download.ID: Entry] = [:]
        var counts: [DownloadState: Int] = [:]
        var bytesReceived: Int64 = 0
        /// Bytes received and expected of the downloads whose length is known.
        var knownReceived: Int64 = 0
        var knownExpected: Int64 = 0
        var knownCount = 0
        var bytesPerSecond: Double = 0
        /// The subscribers, and the latest totals for new ones.
        var broadcast = BroadcastState<AggregateProgress>(replayLimit: 1)
    }

    private let state: ThrottledValue<State, Void>

    /// - Parameter clock: the clock of the interval (the manager's).
    init(interval: Duration, clock: ClockReadings = .continuous) {
        var initial = State()
        initial.broadcast.publish(AggregateProgress())
        state = ThrottledValue(initial, interval: interval, clock: clock) { state, _ in
            state.broadcast.publish(Self.total(of: state))
        }
    }

    /// The totals, as a new subscription: first the current ones, then coalesced updates.
    func subscribe() -> AsyncStream<AggregateProgress> {
        state.subscribe()
    }

    var current: AggregateProgress {
        state.withLock { Self.total(of: $0) }
    }

    /// Makes room for `count` more downloads at once (a restored store's).
    func reserveCapacity(forMore count: Int) {
        // Nothing to publish: the totals are the same.
        state.withLock { state in
            state.entries.reserveCapacity(state.entries.count + count)
        }
    }

    /// Starts counting a download, from `update` (its current progress) and `state`.
    func track(_ id: Download.ID, _ update: Download.ProgressUpdate, state downloadState: DownloadState) {
        state.change { state in
            guard state.entries[id] == nil else { return }
            let entry = Entry(update, state: downloadState)
            state.entries[id] = entry
            state.counts[downloadState, default: 0] += 1
            Self.add(entry, to: &state, sign: 1)
        }
    }

    /// Counts a download's new progress value, unless it is older than the one counted.
    func update(_ id: Download.ID, _ update: Download.ProgressUpdate) {
        state.change { state in
            guard var entry = state.entries[id], update.sequence > entry.sequence else { return }
            Self.add(entry, to: &state, sign: -1)
            entry.set(update)
            state.entries[id] = entry
            Self.add(entry, to: &state, sign: 1)
        }
    }

    func stateChanged(_ id: Download.ID, to downloadState: DownloadState) {
        state.change { state in
            guard var entry = state.entries[id], entry.state != downloadState else { return }
            Self.add(entry, to: &state, sign: -1)
            state.counts[entry.state, default: 1] -= 1
            if state.counts[entry.state] == 0 { state.counts[entry.state] = nil }
            entry.state = downloadState
            state.entries[id] = entry
            state.counts[downloadState, default: 0] += 1
            Self.add(entry, to: &state, sign: 1)
        }
    }

    /// Adds (`sign` 1) or takes away (-1) what `entry` contributes; cancelled downloads
    /// contribute no bytes.
    private static func add(_ entry: Entry, to state: inout State, sign: Int64) {
        guard entry.state != .cancelled else { return }
        state.bytesReceived += sign * entry.bytesReceived
        state.bytesPerSecond += Double(sign) * Double(entry.bytesPerSecond)
        if entry.expectedBytes >= 0 {
            let expected = entry.expectedBytes
            state.knownReceived += sign * min(entry.bytesReceived, expected)
            state.knownExpected += sign * expected
            state.knownCount += Int(sign)
        }
    }

    private static func total(of state: State) -> AggregateProgress {
        var total = AggregateProgress()
        total.downloadCount = state.entries.count
        total.countsByState = state.counts
        total.bytesReceived = state.bytesReceived
        total.bytesPerSecond = max(0, state.bytesPerSecond)
        if state.knownCount > 0 {
            total.expectedBytes = state.knownExpected
            total.fractionCompleted =
                state.knownExpected > 0 ? Double(state.knownReceived) / Double(state.knownExpected) : 1
            if total.bytesPerSecond > 0 {
                total.estimatedTimeRemaining = .seconds(
                    Double(max(0, state.knownExpected - state.knownReceived)) / total.bytesPerSecond)
            }
        }
        return total
    }
}
