import Foundation

/// The queues of Downstream's URLSessions, chosen so that no wait of theirs can starve the
/// process's threads (measured on Linux, Swift 6.3.1).
///
/// - Control calls (creating, resuming, cancelling tasks, invalidating sessions) go through one
///   serial queue for the whole process. On Linux they all wait for Foundation's one work queue,
///   shared by every URLSession, so a queue per session adds no parallelism: it only adds threads.
///   Each control call that waits holds one of Dispatch's threads, and Dispatch makes at most
///   255 of them: with a queue per manager, a few hundred managers whose calls waited at once took
///   them all, and the work queue, whose next event needed a thread, never ran again (a full test
///   run stalled in 4 of 9 runs).
/// - A delegate queue runs on a serial Dispatch queue of its own, never on the width-limited
///   global queue that Swift concurrency's threads come from on Linux: a delegate callback that
///   waits (for the disk, for the bandwidth limit, for buffers written) then never blocks a task.
enum URLSessionQueues {
    /// The queue every URLSession control call of the process goes through, in order.
    static let control = DispatchQueue(label: "Downstream.urlsession-control")

    /// A serial queue named `label` for one session's control calls: its calls run in order,
    /// one at a time with every other session's (on `target`: the process's control queue but
    /// in tests).
    static func makeControlQueue(label: String, target: DispatchQueue = control) -> DispatchQueue {
        DispatchQueue(label: label, target: target)
    }

    /// A session's delegate queue: serial; on Linux a ``BoundedDelegateQueue`` on a Dispatch
    /// queue of its own, which holds URLSession back when our work falls behind.
    ///
    /// On Apple platforms it is a plain serial queue that never waits: a delegate queue held back
    /// there holds a CFNetwork thread, so a request is held back by suspending its task
    /// (``URLSessionTransport/HoldBack/suspendingTask``); and the block that `addOperation` takes
    /// is `@Sendable` only in newer SDKs, so no override would match every SDK.
    static func makeDelegateQueue(limit: Int, name: String) -> OperationQueue {
        #if canImport(Darwin)
            let queue = OperationQueue()
            queue.name = name
            queue.maxConcurrentOperationCount = 1
            return queue
        #else
            BoundedDelegateQueue(limit: limit, name: name)
        #endif
    }
}

/// An operation queue that can be kept by a `Sendable` type and used from any thread.
struct SendableOperationQueue: @unchecked Sendable {
    // Safe: an OperationQueue may be used from several threads at once (Apple's documentation);
    // it is `Sendable` on Linux and in newer Apple SDKs, not in the iOS 16 SDK.
    let queue: OperationQueue

    /// Runs `block` on the queue, after the operations added before it.
    func addOperation(_ block: @escaping @Sendable () -> Void) {
        queue.addOperation(block)
    }
}
