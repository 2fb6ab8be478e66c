/// The live totals of several downloads (a manager's, or a group's): kept as the downloads'
/// progress and states change, in O(1) per change, and published as ``AggregateProgress`` values
/// coalesced like a download's progress (see ``ThrottledValue``).
final class ProgressTotals: Sendable {
    /// What one download contributes.
    typealias Entry = Download.CountedProgress

    private struct State: BroadcastOwner {
        var downloadCount = 0
        var counts: [DownloadState: Int] = [:]
        var bytesReceived: Int64 = 0
        /// Bytes received and expected of the downloads whose length is known.
        var knownReceived: Int64 = 0
        var knownExpected: Int64 = 0
        var knownCount = 0
        /// The downloads not ended whose length is unknown.
        var unknownLengths = 0
        var bytesPerSecond: Double = 0
        /// The subscribers, and the latest totals for new ones.
        var broadcast = BroadcastState<AggregateProgress>(replayLimit: 1)
    }

    private let state: ThrottledValue<State, Void>
    /// What each download contributes, by identifier, for the downloads counted by identifier
    /// (a group's). A manager's totals keep none: each download keeps its own entry.
    private let entries = Locked<[Download.ID: Entry]>([:])

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

    // MARK: - A download whose entry its caller keeps

    // The caller keeps each download's entry, and makes the calls for one download one at a
    // time (under one lock of its own).

    /// Starts counting a download, from `update` (its current progress) and `state`, unless its
    /// `entry` says it is counted already.
    func track(_ entry: inout Entry?, _ update: Download.ProgressUpdate, state downloadState: DownloadState) {
        guard entry == nil else { return }
        let new = Entry(update, state: downloadState)
        entry = new
        state.change { state in
            state.downloadCount += 1
            state.counts[downloadState, default: 0] += 1
            Self.add(new, to: &state, sign: 1)
        }
    }

    /// Counts a download's new progress value, unless it is older than the one counted.
    func update(_ entry: inout Entry?, _ update: Download.ProgressUpdate) {
        guard let old = entry, let new = old.updated(with: update) else { return }
        entry = new
        state.change { Self.replace(old, with: new, in: &$0) }
    }

    func stateChanged(_ entry: inout Entry?, to downloadState: DownloadState) {
        guard let old = entry, old.state != downloadState else { return }
        var new = old
        new.state = downloadState
        entry = new
        state.change { Self.replace(old, with: new, in: &$0) }
    }

    // MARK: - A download counted by identifier

    func track(_ id: Download.ID, _ update: Download.ProgressUpdate, state downloadState: DownloadState) {
        entries.withLock { track(&$0[id], update, state: downloadState) }
    }

    func update(_ id: Download.ID, _ update: Download.ProgressUpdate) {
        entries.withLock { self.update(&$0[id], update) }
    }

    func stateChanged(_ id: Download.ID, to downloadState: DownloadState) {
        entries.withLock { stateChanged(&$0[id], to: downloadState) }
    }

    private static func replace(_ old: Entry, with new: Entry, in state: inout State) {
        add(old, to: &state, sign: -1)
        if old.state != new.state {
            state.counts[old.state, default: 1] -= 1
            if state.counts[old.state] == 0 { state.counts[old.state] = nil }
            state.counts[new.state, default: 0] += 1
        }
        add(new, to: &state, sign: 1)
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
            state.knownCount += sign > 0 ? 1 : -1
        } else if !entry.state.isFinished {
            state.unknownLengths += sign > 0 ? 1 : -1
        }
    }

    private static func total(of state: State) -> AggregateProgress {
        var total = AggregateProgress()
        total.downloadCount = state.downloadCount
        total.countsByState = state.counts
        total.bytesReceived = state.bytesReceived
        total.bytesPerSecond = max(0, state.bytesPerSecond)
        total.unknownLengthCount = state.unknownLengths
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
