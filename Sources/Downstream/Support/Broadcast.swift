/// A multicast of values to any number of `AsyncStream` subscribers.
///
/// Every call to ``subscribe()`` makes a new stream that first replays the most recent values
/// (up to `replayLimit`), then receives every value published after it subscribed. Streams buffer
/// at most `bufferLimit` values (the newest win), so a slow or absent consumer never holds the
/// publisher back and never makes memory grow. ``finish()`` ends all current streams; a stream
/// that subscribes to a finished broadcast replays the history and ends at once. ``reopen()``
/// accepts subscribers and values again (a failed download that is resumed starts a new run).
///
/// Its state is a ``BroadcastState``, which an owner with a lock of its own can keep under it
/// instead (see ``BroadcastOwner``): one allocation fewer per download.
struct Broadcast<Element: Sendable>: Sendable {
    private let state: Locked<BroadcastState<Element>>

    /// - Parameters:
    ///   - replayLimit: how many of the latest values a new subscriber first receives.
    ///   - bufferLimit: how many values each subscriber's buffer holds (the newest win); by
    ///     default as many as it replays, and at least 1.
    init(replayLimit: Int, bufferLimit: Int? = nil) {
        state = Locked(BroadcastState(replayLimit: replayLimit, bufferLimit: bufferLimit))
    }

    func subscribe() -> AsyncStream<Element> {
        state.subscribe()
    }

    func publish(_ element: Element) {
        state.withLock { $0.publish(element) }
    }

    /// Ends every current subscription after the values already published.
    func finish() {
        state.finishBroadcast()
    }

    /// Accepts values and live subscribers again after ``finish()``; the history is kept.
    func reopen() {
        state.withLock { $0.reopen() }
    }

    /// How many subscriptions receive what is published now.
    var subscriberCount: Int {
        state.withLock { $0.subscriberCount }
    }
}

/// The values and subscribers of a broadcast (see ``Broadcast``), kept under its owner's lock.
struct BroadcastState<Element: Sendable> {
    let replayLimit: Int
    let bufferLimit: Int
    /// The latest value, and the ones before it (up to `replayLimit` in all): no array for the
    /// common history of one value.
    private var latest: Element?
    private var earlier: [Element] = []
    private var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
    private var nextID = 0
    private(set) var isFinished = false

    init(replayLimit: Int, bufferLimit: Int? = nil) {
        precondition(replayLimit >= 0)
        self.replayLimit = replayLimit
        self.bufferLimit = max(1, bufferLimit ?? replayLimit)
    }

    /// How many subscriptions receive what is published now: a cancelled or finished one no
    /// longer counts.
    var subscriberCount: Int {
        subscribers.count
    }

    /// The values a new subscriber first receives, oldest first.
    var history: [Element] {
        guard let latest else { return [] }
        return earlier + [latest]
    }

    /// Sends `element` to every subscriber, in the order of the calls (made under the owner's
    /// lock), and keeps it for later subscribers. `yield` never runs consumer code inline: it
    /// buffers or schedules the waiting consumer.
    mutating func publish(_ element: Element) {
        guard !isFinished else { return }
        if replayLimit > 0 {
            if let latest, replayLimit > 1 {
                if earlier.count == replayLimit - 1 { earlier.removeFirst() }
                earlier.append(latest)
            }
            latest = element
        }
        for continuation in subscribers.values {
            continuation.yield(element)
        }
    }

    /// Adds a subscriber (after replaying the history into it); returns its identifier, or nil
    /// if the broadcast is finished and the caller must finish the stream, outside the lock.
    mutating func add(_ continuation: AsyncStream<Element>.Continuation) -> Int? {
        // The stream is new: nobody iterates it yet, so these yields only fill its buffer.
        for element in history {
            continuation.yield(element)
        }
        guard !isFinished else { return nil }
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        return id
    }

    /// Removes a subscriber; returns it, to be released outside the lock.
    mutating func remove(_ id: Int) -> AsyncStream<Element>.Continuation? {
        subscribers.removeValue(forKey: id)
    }

    /// Marks the broadcast finished; returns the subscribers, to finish outside the lock.
    mutating func finish() -> [AsyncStream<Element>.Continuation] {
        isFinished = true
        defer { subscribers = [:] }
        return Array(subscribers.values)
    }

    mutating func reopen() {
        isFinished = false
    }
}

/// A value that holds a broadcast's state, to keep it under the value's own lock: `Locked`
/// then subscribes to it and finishes it. (A protocol rather than a key path: key paths are made
/// at run time on every use.)
protocol BroadcastOwner: SendableMetatype {
    associatedtype Element: Sendable
    var broadcast: BroadcastState<Element> { get set }
}

extension BroadcastState: BroadcastOwner {
    var broadcast: BroadcastState<Element> {
        get { self }
        set { self = newValue }
    }
}

extension Locked where State: BroadcastOwner {
    /// A new subscription to the guarded broadcast.
    func subscribe() -> AsyncStream<State.Element> {
        let bufferLimit = withLock { $0.broadcast.bufferLimit }
        let (stream, continuation) = AsyncStream.makeStream(
            of: State.Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = withLock { state -> Int? in
            guard let id = state.broadcast.add(continuation) else { return nil }
            continuation.onTermination = { _ in
                // The removed continuation is released after the lock is dropped.
                let removed = withLock { $0.broadcast.remove(id) }
                _ = removed
            }
            return id
        }
        if id == nil {
            continuation.finish()
        }
        return stream
    }

    /// Ends every subscription to the guarded broadcast.
    func finishBroadcast() {
        let subscribers = withLock { $0.broadcast.finish() }
        for continuation in subscribers {
            continuation.finish()
        }
    }
}
