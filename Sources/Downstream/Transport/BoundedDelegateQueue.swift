import Foundation

#if !canImport(Darwin)
    /// The session's delegate queue: serial, and it holds URLSession back when our work falls behind.
    ///
    /// URLSession on Linux has no backpressure: its internal work queue hands every chunk to the
    /// delegate queue with `addOperation { … }` and goes on reading, so with a slow disk hundreds of
    /// megabytes pile up as pending callbacks. Here `addOperation` waits while `limit` callbacks are
    /// pending. That parks Foundation's work queue, curl stops reading the socket, and TCP pushes
    /// back on the server; memory stays at about `limit` chunks.
    ///
    /// Costs, measured on Linux: all URLSessions of a process share Foundation's work queue, so one
    /// held-back download slows the others; and URLSession calls that need that queue (creating,
    /// resuming, cancelling tasks) must never be made from this queue (they would deadlock) and may
    /// block elsewhere: they are made from the process's one control queue (``URLSessionQueues``).
    final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
        // Safe: the only state added to OperationQueue is `slots`, which is itself thread-safe,
        // and `dispatchQueue`, which is set once.
        private let slots: SlotCounter
        /// The serial Dispatch queue the operations run on (see ``URLSessionQueues``). Kept here:
        /// `underlyingQueue` does not keep it alive on Linux (`unowned(unsafe)`).
        private let dispatchQueue: DispatchQueue

        init(limit: Int, name: String) {
            slots = SlotCounter(limit: limit)
            dispatchQueue = DispatchQueue(label: name)
            super.init()
            self.name = name
            maxConcurrentOperationCount = 1
            underlyingQueue = dispatchQueue
        }

        override func addOperation(_ block: @Sendable @escaping () -> Void) {
            // Never wait on ourselves: an operation of this queue that adds another would deadlock.
            guard OperationQueue.current !== self else {
                super.addOperation(block)
                return
            }
            slots.acquire()
            let slots = self.slots
            super.addOperation {
                block()
                slots.release()
            }
        }
    }
#endif

/// A counting semaphore. (`DispatchSemaphore` traps when released with a count below its
/// initial value, which a queue torn down with pending operations could do.)
final class SlotCounter: Sendable {
    private let condition = ConditionBox()
    private let limit: Int

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    func acquire() {
        condition.wait(until: { $0 < limit }, then: { $0 += 1 })
    }

    func release() {
        condition.update { $0 -= 1 }
    }
}

/// An integer guarded by an `NSCondition`.
final class ConditionBox: @unchecked Sendable {
    // Safe: `value` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var value = 0

    func wait(until predicate: (Int) -> Bool, then change: (inout Int) -> Void) {
        condition.lock()
        while !predicate(value) {
            condition.wait()
        }
        change(&value)
        condition.unlock()
    }

    func update(_ change: (inout Int) -> Void) {
        condition.lock()
        change(&value)
        condition.broadcast()
        condition.unlock()
    }
}
