@testable import Downstream
import Foundation
import Testing

/// Where URLSession's control calls and delegate callbacks run: never on threads that can run
/// out. (With a queue per manager, a full test run stalled in 4 of 9 runs: 255 of Dispatch's
/// threads, its limit, waited in control calls, and two delegate queues waiting for the disk held
/// both threads of the pool Swift concurrency shares on Linux.)
@Suite(.timeLimit(.minutes(1)))
struct URLSessionQueuesTests {
    /// The control calls of every session run on one queue, one at a time, however many managers
    /// there are: they take at most one thread between them. (On a queue of the test's own: the
    /// process's is busy with the other tests' calls.)
    @Test func everySessionsControlCallsGoThroughOneQueue() async {
        let key = DispatchSpecificKey<String>()
        let shared = DispatchQueue(label: "test.control")
        shared.setSpecific(key: key, value: "shared")
        let queues = (0..<3).map { URLSessionQueues.makeControlQueue(label: "test.control.\($0)", target: shared) }
        let inside = Locked(0)
        let mostInside = Locked(0)
        let group = DispatchGroup()
        for queue in queues {
            for _ in 0..<20 {
                queue.async(group: group) {
                    let now = inside.withLock {
                        $0 += 1; return $0
                    }
                    mostInside.withLock { $0 = max($0, now) }
                    #expect(DispatchQueue.getSpecific(key: key) == "shared")
                    inside.withLock { $0 -= 1 }
                }
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        #expect(mostInside.value == 1)
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
