/// Wakes the tasks that wait for the next change: each ``notify()`` wakes those waiting at that
/// moment. A waiter whose task is cancelled stops waiting, also when the cancellation comes
/// before it parked.
final class ChangeSignal: Sendable {
    /// Where one waiter is.
    private enum Slot {
        /// Waiting, not parked yet.
        case arriving
        case parked(CheckedContinuation<Void, Never>)
        /// Woken (notified or cancelled) before it parked: it returns as it parks.
        case released
    }

    private struct State {
        var slots: [Int: Slot] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    init() {}

    /// Returns at the next ``notify()``, or when the calling task is cancelled.
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.slots[state.nextID] = .arriving
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isReleased = state.withLock { state in
                    if case .released = state.slots[id] {
                        state.slots[id] = nil
                        return true
                    }
                    state.slots[id] = .parked(continuation)
                    return false
                }
                if isReleased { continuation.resume() }
            }
        } onCancel: {
            release([id])
        }
    }

    /// Wakes every task waiting now.
    func notify() {
        release(nil)
    }

    /// Wakes the parked waiters `ids` (all, if nil), and marks those that did not park yet to
    /// return as they park.
    private func release(_ ids: [Int]?) {
        let woken = state.withLock { state in
            var woken: [CheckedContinuation<Void, Never>] = []
            for id in ids ?? Array(state.slots.keys) {
                guard let slot = state.slots[id] else { continue }
                switch slot {
                case .arriving:
                    state.slots[id] = .released
                case .parked(let continuation):
                    woken.append(continuation)
                    state.slots[id] = nil
                case .released:
                    break
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }
}
