/// A multicast of values to any number of `AsyncStream` subscribers.
///
/// Every call to ``subscribe()`` makes a new stream that first replays the most recent values
/// (up to `replayLimit`), then receives every value published after it subscribed. Streams buffer
/// at most `replayLimit` values (the newest win), so a slow or absent consumer never holds the
/// publisher back and never makes memory grow. ``finish()`` ends all current streams; a stream
/// that subscribes to a finished broadcast replays the history and ends at once. ``reopen()``
/// accepts subscribers and values again (a failed download that is resumed starts a new run).
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var history: [Element] = []
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var isFinished = false
    }

    private let replayLimit: Int
    private let bufferLimit: Int
    private let state = Locked(State())

    /// - Parameters:
    ///   - replayLimit: how many of the latest values a new subscriber first receives.
    ///   - bufferLimit: how many values each subscriber's buffer holds (the newest win); by
    ///     default as many as it replays, and at least 1.
    init(replayLimit: Int, bufferLimit: Int? = nil) {
        precondition(replayLimit >= 0)
        self.replayLimit = replayLimit
        self.bufferLimit = max(1, bufferLimit ?? replayLimit)
    }

    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let isFinished = state.withLock { state in
            // The stream is new: nobody iterates it yet, so these yields only fill its buffer.
            for element in state.history {
                continuation.yield(element)
            }
            guard !state.isFinished else { return true }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.unsubscribe(id)
            }
            return false
        }
        if isFinished {
            continuation.finish()
        }
        return stream
    }

    func publish(_ element: Element) {
        state.withLock { state in
            guard !state.isFinished else { return }
            if replayLimit > 0 {
                if state.history.count == replayLimit {
                    state.history.removeFirst()
                }
                state.history.append(element)
            }
            // Yielding under the lock keeps every subscriber's order equal to the publish order.
            // `yield` never runs consumer code inline: it buffers or schedules the waiting
            // consumer; termination handlers only run from `finish()`, called outside the lock.
            for continuation in state.subscribers.values {
                continuation.yield(element)
            }
        }
    }

    /// Ends every current subscription after the values already published.
    func finish() {
        let subscribers = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers {
            continuation.finish()
        }
    }

    /// Accepts values and live subscribers again after ``finish()``; the history is kept.
    func reopen() {
        state.withLock { $0.isFinished = false }
    }

    private func unsubscribe(_ id: Int) {
        // The removed continuation is released after the lock is dropped.
        let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
        _ = removed
    }
}
