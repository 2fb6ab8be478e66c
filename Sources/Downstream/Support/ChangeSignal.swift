/// Wakes the tasks that wait for the next change.
///
/// A waiter registers first (``register()``), then looks at what it waits for, then waits with
/// its ticket: a ``notify()`` that comes in between is not lost. A waiter whose task is cancelled
/// stops waiting, also when the cancellation comes before it parked.
final class ChangeSignal: Sendable {
    /// A registration, made before looking at what is waited for.
    struct Ticket: Sendable {
        fileprivate let id: Int
    }

    /// Where one waiter is.
    private enum Slot {
        /// Registered, not parked yet.
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

    /// Registers a waiter: the next ``notify()`` wakes it, whenever it waits.
    func register() -> Ticket {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.slots[state.nextID] = .arriving
            return Ticket(id: state.nextID)
        }
    }

    /// Returns at the first ``notify()`` since `ticket` was registered (at once if one came
    /// already), or when the calling task is cancelled. A ticket waits once.
    func wait(_ ticket: Ticket) async {
        let id = ticket.id
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isReleased = state.withLock { state in
                    guard case .arriving = state.slots[id] else {
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

    /// Forgets a ticket that will not wait.
    func unregister(_ ticket: Ticket) {
        release([ticket.id])
        state.withLock { state in
            if case .released = state.slots[ticket.id] { state.slots[ticket.id] = nil }
        }
    }

    /// Wakes every registered waiter.
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
