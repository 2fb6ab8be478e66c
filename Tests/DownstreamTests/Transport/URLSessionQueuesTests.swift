@testable import Downstream
import Foundation
import Testing

/// Where URLSession's control calls and delegate callbacks run: never on threads that can run
/// out. (With a queue per manager, a full test run stalled in 4 of 9 runs: 255 of Dispatch's
/// threads, its limit, waited in control calls, and two delegate queues waiting for the disk held
/// both threads of the pool Swift concurrency shares on Linux.)
@Suite(.timeLimit(.minutes(1)))
struct URLSessionQueuesTests {
    /// The control calls of every session run on the process's one control queue, one at a time,
    /// however many managers there are: they take at most one thread between them.
    @Test func everySessionsControlCallsGoThroughOneQueue() async {
        let key = DispatchSpecificKey<String>()
        URLSessionQueues.control.setSpecific(key: key, value: "control")
        defer { URLSessionQueues.control.setSpecific(key: key, value: nil) }
        let queues = (0..<3).map { URLSessionQueues.makeControlQueue(label: "test.control.\($0)") }
        for queue in queues {
            let seen = queue.sync { DispatchQueue.getSpecific(key: key) }
            #expect(seen == "control")
        }
    }

    /// On Linux a delegate queue's callbacks run on a serial Dispatch queue of its own, not on the
    /// global queue whose threads Swift concurrency uses: a callback that waits for the disk
    /// blocks no task.
    @Test func aDelegateQueueRunsOnADispatchQueueOfItsOwn() async throws {
        let queue = URLSessionQueues.makeDelegateQueue(limit: 4, name: "test.delegate")
        #expect(queue.maxConcurrentOperationCount == 1)
        #if canImport(Darwin)
            #expect(queue.underlyingQueue == nil)
        #else
            let underlying = try #require(queue.underlyingQueue)
            let key = DispatchSpecificKey<String>()
            underlying.setSpecific(key: key, value: "delegate")
            let seen = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                queue.addOperation { continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
            }
            #expect(seen == "delegate")
            #expect(queue is BoundedDelegateQueue)
        #endif
    }
}
