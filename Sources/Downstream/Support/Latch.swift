/// A one-way gate: tasks wait until it opens; once open, it stays open.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    init(isOpen: Bool = false) {
        state.withLock { $0.isOpen = isOpen }
    }

    var isOpen: Bool {
        state.withLock { $0.isOpen }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open, whatever happens to the calling task.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
