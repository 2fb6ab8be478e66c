/// Keeps the totals of several downloads as their progress and states change, in O(1) per
/// change, and publishes them coalesced (see ``AggregateProgress``).
final class ProgressAggregate: Sendable {
    /// What one download contributes: only the figures the totals need (thousands are kept).
    private struct Entry {
        var bytesReceived: Int64
        /// -1 when unknown.
        var expectedBytes: Int64
        var bytesPerSecond: Double
        var state: DownloadState

        init(_ progress: DownloadProgress, state: DownloadState) {
            self.state = state
            bytesReceived = 0
            expectedBytes = -1
            bytesPerSecond = 0
            set(progress)
        }

        mutating func set(_ progress: DownloadProgress) {
            bytesReceived = progress.bytesReceived
            expectedBytes = progress.expectedBytes ?? -1
            bytesPerSecond = progress.bytesPerSecond
        }
    }

    private struct State {
        var entries: [Download.ID: Entry] = [:]
        var counts: [DownloadState: Int] = [:]
        var bytesReceived: Int64 = 0
        /// Bytes received and expected of the downloads whose length is known.
        var knownReceived: Int64 = 0
        var knownExpected: Int64 = 0
        var knownCount = 0
        var bytesPerSecond: Double = 0
        var throttle: PublishThrottle
    }

    let broadcast = Broadcast<AggregateProgress>(replayLimit: 1)
    private let state: Locked<State>

    init(interval: Duration) {
        state = Locked(State(throttle: PublishThrottle(interval: interval)))
        broadcast.publish(AggregateProgress())
    }

    var current: AggregateProgress {
        state.withLock { Self.total(of: $0) }
    }

    /// Starts counting a download.
    func track(_ id: Download.ID, progress: DownloadProgress, state downloadState: DownloadState) {
        change { state in
            guard state.entries[id] == nil else { return }
            let entry = Entry(progress, state: downloadState)
            state.entries[id] = entry
            state.counts[downloadState, default: 0] += 1
            Self.add(entry, to: &state, sign: 1)
        }
    }

    func update(_ id: Download.ID, progress: DownloadProgress) {
        change { state in
            guard var entry = state.entries[id] else { return }
            Self.add(entry, to: &state, sign: -1)
            entry.set(progress)
            state.entries[id] = entry
            Self.add(entry, to: &state, sign: 1)
        }
    }

    func stateChanged(_ id: Download.ID, to downloadState: DownloadState) {
        change { state in
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

    // MARK: - Private

    private func change(_ body: (inout State) -> Void) {
        let delay: Duration? = state.withLock { state in
            body(&state)
            switch state.throttle.decide(at: .now) {
            case .publish:
                state.throttle.published(at: .now)
                broadcast.publish(Self.total(of: state))
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

    private func publishTrailing() {
        state.withLock { state in
            state.throttle.trailingIsDue()
            state.throttle.published(at: .now)
            broadcast.publish(Self.total(of: state))
        }
    }

    /// Adds (`sign` 1) or takes away (-1) what `entry` contributes; cancelled downloads
    /// contribute no bytes.
    private static func add(_ entry: Entry, to state: inout State, sign: Int64) {
        guard entry.state != .cancelled else { return }
        state.bytesReceived += sign * entry.bytesReceived
        state.bytesPerSecond += Double(sign) * entry.bytesPerSecond
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
