/// A manager's bandwidth limits: one for all its downloads together and one per download, each
/// a ``TokenBucket`` on the manager's clock, changeable at any time.
///
/// A transfer asks before it takes a chunk (``admit(_:for:task:)``). When a limit says wait, the
/// chunk is not taken (the transfer answers `.later`, so nothing piles up) and the limiter
/// resumes the task when it may go on. Where a waiting transfer holds back no other (libcurl, and
/// URLSession on Apple platforms, which suspends the task), downloads that share the overall limit
/// take turns in the order they started waiting, one chunk each: each gets a fair share, however
/// many connections it has (a segmented download's transfers take its turns one after another).
/// On Linux's URLSession a waiting chunk holds back every delivery of the session, so turns would
/// deadlock: there each waits only until the bucket allows, and the session's own interleaving
/// shares it.
final class BandwidthLimiter: Sendable {
    private struct Waiter {
        let id: DownloadID
        let task: any TransportTask
        /// When a timed wait ends.
        var until: Duration = .zero

        var key: ObjectIdentifier { ObjectIdentifier(task) }
    }

    private struct State {
        var overall: TokenBucket?
        var perDownload: [DownloadID: TokenBucket] = [:]
        /// Transfers waiting for the overall limit, in turn (a segmented download has several).
        var queue: [Waiter] = []
        /// The transfer resumed for its turn of the overall limit, until it takes its chunk.
        var granted: Waiter?
        /// Transfers waiting until a time: for their download's own limit, or for the overall one
        /// when their transport cannot take turns (``TransportTask/waitsAlone``).
        var timedWaits: [ObjectIdentifier: Waiter] = [:]
        /// When the timer that runs next is due.
        var armedFor: Duration?
        /// Bytes let through while a limit was set, by download, and the largest chunk of them.
        var admitted: [DownloadID: (bytes: Int64, largestChunk: Int)] = [:]

        var isIdle: Bool { overall == nil && perDownload.isEmpty }
    }

    private let state: Locked<State>
    /// The clock's time, and its timers.
    private let clock: ClockReadings

    /// Limits on `clock`: `overall` bytes per second for all downloads together (nil: none).
    init(overall: Int?, clock: any Clock<Duration>) {
        self.clock = ClockReadings(clock)
        let start = self.clock.now()
        state = Locked(State(overall: overall.map { TokenBucket(rate: $0, at: start) }))
    }

    /// The limit for all downloads together, in bytes per second (nil: none).
    var overall: Int? {
        state.withLock { $0.overall?.rate }
    }

    /// Changes the limit for all downloads together; takes effect for the next chunk.
    func setOverall(_ rate: Int?) {
        let at = clock.now()
        let wakes = state.withLock { state -> [any TransportTask] in
            if let rate {
                if state.overall == nil {
                    state.overall = TokenBucket(rate: rate, at: at)
                } else {
                    state.overall?.change(rate: rate, at: at)
                }
            } else {
                state.overall = nil
            }
            // Those waiting for a time ask again under the new limit.
            let waiting = state.timedWaits.values.map(\.task)
            state.timedWaits = [:]
            return waiting + due(&state, at: at)
        }
        for task in wakes { task.resumeBody() }
    }

    /// Changes the limit of one download (nil: none); takes effect for its next chunk.
    func setLimit(_ rate: Int?, for id: DownloadID) {
        let at = clock.now()
        let wakes = state.withLock { state -> [any TransportTask] in
            if let rate {
                if state.perDownload[id] == nil {
                    state.perDownload[id] = TokenBucket(rate: rate, at: at)
                } else {
                    state.perDownload[id]?.change(rate: rate, at: at)
                }
            } else {
                state.perDownload[id] = nil
            }
            // The download's transfers waiting for a time ask again under the new limit.
            let waiting = state.timedWaits.values.filter { $0.id == id }
            for waiter in waiting { state.timedWaits[waiter.key] = nil }
            return waiting.map(\.task) + due(&state, at: at)
        }
        for task in wakes { task.resumeBody() }
    }

    /// The limit of one download, if it has one.
    func limit(for id: DownloadID) -> Int? {
        state.withLock { $0.perDownload[id]?.rate }
    }

    /// Whether `id` may take a chunk of `count` bytes now; if so, it is counted. If not, nothing
    /// is counted and `task` is resumed (``TransportTask/resumeBody()``) when it may.
    func admit(_ count: Int, for id: DownloadID, task: any TransportTask) -> Bool {
        // Once per chunk: one lock, and no clock read when there is no limit.
        state.withLock { state in
            guard !state.isIdle else { return true }
            let at = clock.now()
            let key = ObjectIdentifier(task)
            if let wait = state.perDownload[id]?.wait(at: at) {
                state.timedWaits[key] = Waiter(id: id, task: task, until: at + wait)
                if state.granted?.key == key {
                    // Its turn goes on to the next download while it waits for its own limit.
                    state.granted = nil
                    if !state.queue.isEmpty {
                        arm(&state, for: at + (state.overall?.wait(at: at) ?? .zero))
                    }
                }
                arm(&state, for: at + wait)
                return false
            }
            if state.overall != nil, !task.waitsAlone {
                if let wait = state.overall?.wait(at: at) {
                    state.timedWaits[key] = Waiter(id: id, task: task, until: at + wait)
                    arm(&state, for: at + wait)
                    return false
                }
                _ = state.overall?.take(count, at: at)
            } else if state.overall != nil {
                let isTurn = state.granted?.key == key || (state.granted == nil && state.queue.first?.key ?? key == key)
                let wait = isTurn ? state.overall?.wait(at: at) : nil
                if !isTurn || wait != nil {
                    if !state.queue.contains(where: { $0.key == key }) {
                        state.queue.append(Waiter(id: id, task: task))
                    }
                    if let wait { arm(&state, for: at + wait) }
                    return false
                }
                _ = state.overall?.take(count, at: at)
                if state.granted?.key == key { state.granted = nil }
                state.queue.removeAll { $0.key == key }
                // Turns are per download, not per connection: the download's other transfers
                // wait behind every other download.
                let mine = state.queue.filter { $0.id == id }
                if !mine.isEmpty {
                    state.queue.removeAll { $0.id == id }
                    state.queue += mine
                }
                if !state.queue.isEmpty {
                    // The next in turn is resumed once the bucket allows.
                    arm(&state, for: at + (state.overall?.wait(at: at) ?? .zero))
                }
            }
            _ = state.perDownload[id]?.take(count, at: at)
            let before = state.admitted[id] ?? (0, 0)
            state.admitted[id] = (before.bytes + Int64(count), max(before.largestChunk, count))
            return true
        }
    }

    /// The bytes of `id` let through while a limit was set.
    func bytesAdmitted(for id: DownloadID) -> Int64 {
        state.withLock { $0.admitted[id]?.bytes ?? 0 }
    }

    /// The largest chunk of `id` let through while a limit was set: how far one chunk may put a
    /// bucket in debt.
    func largestChunkAdmitted(for id: DownloadID) -> Int {
        state.withLock { $0.admitted[id]?.largestChunk ?? 0 }
    }

    /// The transfer running `task` ended: it waits for nothing any more, and its turn passes on.
    func transferEnded(_ task: any TransportTask) {
        let key = ObjectIdentifier(task)
        ended { $0.key == key }
    }

    /// The transfers that `matches` selects wait for nothing any more; turns pass on.
    private func ended(where matches: (Waiter) -> Bool) {
        let at = clock.now()
        let wakes = state.withLock { state -> [any TransportTask] in
            for waiter in state.timedWaits.values where matches(waiter) {
                state.timedWaits[waiter.key] = nil
            }
            if let granted = state.granted, matches(granted) {
                state.granted = nil
            }
            state.queue.removeAll(where: matches)
            return due(&state, at: at)
        }
        for task in wakes { task.resumeBody() }
    }

    /// The download is gone: its limit too.
    func forget(_ id: DownloadID) {
        ended { $0.id == id }
        state.withLock { state in
            state.perDownload[id] = nil
            state.admitted[id] = nil
        }
    }

    // MARK: - Timer

    /// Takes from `state` the tasks to resume at `at`, and arms the timer for the next.
    private func due(_ state: inout State, at: Duration) -> [any TransportTask] {
        var wakes: [any TransportTask] = []
        for (key, waiter) in state.timedWaits where waiter.until <= at {
            state.timedWaits[key] = nil
            wakes.append(waiter.task)
        }
        if state.overall == nil {
            // No overall limit any more: everyone waiting for it goes.
            wakes += state.queue.map(\.task)
            state.queue = []
            state.granted = nil
        } else if state.granted == nil, let head = state.queue.first {
            if let wait = state.overall?.wait(at: at) {
                arm(&state, for: at + wait)
            } else {
                state.granted = head
                state.queue.removeFirst()
                wakes.append(head.task)
            }
        }
        if let next = state.timedWaits.values.map(\.until).min() {
            arm(&state, for: next)
        }
        return wakes
    }

    /// Makes sure a timer runs at `deadline` (or sooner).
    private func arm(_ state: inout State, for deadline: Duration) {
        if let armed = state.armedFor, armed <= deadline { return }
        state.armedFor = deadline
        clock.schedule(deadline) { [weak self] in self?.timerFired(deadline) }
    }

    private func timerFired(_ deadline: Duration) {
        let at = clock.now()
        let wakes = state.withLock { state -> [any TransportTask] in
            if state.armedFor == deadline { state.armedFor = nil }
            return due(&state, at: at)
        }
        for task in wakes { task.resumeBody() }
    }
}
