import Foundation

/// Elements in the order they arrived, which tasks can wait for by position: the tasks a
/// ``BackgroundSessionReplay`` saw started, the cancellations it saw asked for, the peaks of an
/// ``InFlightGauge``.
///
/// Waits are cancellation-safe: a waiter is registered before it suspends, and one cancelled
/// before it was parked returns at once.
final class ArrivalLog<Element: Sendable>: @unchecked Sendable {
    // Safe: every stored property but `lock` is only touched while `lock` is held.
    private enum Waiter {
        /// Registered, not yet suspended.
        case registered(index: Int)
        /// Suspended until the element at `index` arrives.
        case parked(index: Int, CheckedContinuation<Element?, Never>)
        /// Cancelled before it suspended.
        case cancelled
    }

    private let lock = NSLock()
    private var elements: [Element] = []
    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiter: UInt64 = 0

    /// Every element so far, in order.
    var all: [Element] {
        lock.withLock { elements }
    }

    /// Adds `element` and wakes those who waited for its position.
    func append(_ element: Element) {
        let woken = lock.withLock { () -> [CheckedContinuation<Element?, Never>] in
            elements.append(element)
            let index = elements.count - 1
            var woken: [CheckedContinuation<Element?, Never>] = []
            for (id, waiter) in waiters {
                if case .parked(index, let continuation) = waiter {
                    waiters[id] = nil
                    woken.append(continuation)
                }
            }
            return woken
        }
        for continuation in woken {
            continuation.resume(returning: element)
        }
    }

    /// The element at `index` (0-based), once it arrived; nil if `timeout` passes or the task is
    /// cancelled first.
    func element(at index: Int, timeout: Duration) async -> Element? {
        let id = lock.withLock { () -> UInt64 in
            nextWaiter += 1
            waiters[nextWaiter] = .registered(index: index)
            return nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let answer = lock.withLock { () -> Element?? in
                    if index < elements.count {
                        waiters[id] = nil
                        return .some(elements[index])
                    }
                    if case .cancelled = waiters[id] {
                        waiters[id] = nil
                        return .some(nil)
                    }
                    waiters[id] = .parked(index: index, continuation)
                    return nil
                }
                if let answer {
                    continuation.resume(returning: answer)
                    return
                }
                let nanoseconds =
                    timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
                    [weak self] in
                    self?.giveUp(id)?.resume(returning: nil)
                }
            }
        } onCancel: {
            giveUp(id)?.resume(returning: nil)
        }
    }

    /// Removes waiter `id`; returns its continuation if it was parked, and remembers a waiter
    /// that was not parked yet as cancelled.
    private func giveUp(_ id: UInt64) -> CheckedContinuation<Element?, Never>? {
        lock.withLock {
            switch waiters[id] {
            case .parked(_, let continuation):
                waiters[id] = nil
                return continuation
            case .registered:
                waiters[id] = .cancelled
                return nil
            case .cancelled, nil:
                return nil
            }
        }
    }
}
