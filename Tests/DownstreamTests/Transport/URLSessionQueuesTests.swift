@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

    #if !canImport(Darwin)
        /// On Linux a challenge is answered on the control queue, never inline on the delegate
        /// queue: the answer cancels the task, and Linux's cancel waits for Foundation's work
        /// queue, which may itself wait for room on the delegate queue (``BoundedDelegateQueue``):
        /// every URLSession of the process would stop.
        @Test func aChallengeIsAnsweredOnTheControlQueueNotTheDelegateQueue() async throws {
            let control = DispatchQueue(label: "test.challenge.control")
            let key = DispatchSpecificKey<String>()
            control.setSpecific(key: key, value: "control")
            let delegate = URLSessionTransport.Delegate(trust: TrustSettings(), controlQueue: control)
            let session = URLSession(configuration: .ephemeral)
            // URLSession's calls wait for the work queue every session of the process shares
            // (which a held-back download holds): never on a thread of the concurrency pool.
            defer { Thread.detachNewThread { session.invalidateAndCancel() } }
            let url = try #require(URL(string: "http://127.0.0.1:9/file.bin"))
            let task = try await onOwnThread { session.dataTask(with: url) }
            let space = URLProtectionSpace(
                host: "127.0.0.1", port: 9, protocol: "http", realm: "files",
                authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
            let challenge = URLAuthenticationChallenge(
                protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: nil,
                error: nil, sender: IgnoringChallengeSender())
            // The control queue waits: an answer made inline comes before the callback returns.
            control.suspend()
            let answer = Locked<(URLSession.AuthChallengeDisposition, String?)?>(nil)
            let answered = AsyncStream<Void>.makeStream()
            delegate.urlSession(session, task: task, didReceive: challenge) { disposition, _ in
                answer.withLock { $0 = (disposition, DispatchQueue.getSpecific(key: key)) }
                answered.continuation.yield()
            }
            #expect(answer.value == nil)
            control.resume()
            var iterator = answered.stream.makeAsyncIterator()
            await iterator.next()
            #expect(answer.value?.0 == .cancelAuthenticationChallenge)
            #expect(answer.value?.1 == "control")
        }
    #endif
}

#if !canImport(Darwin)
    /// A challenge's sender that is never asked: URLSession's delegate answers through its
    /// completion handler.
    private final class IgnoringChallengeSender: NSObject, URLAuthenticationChallengeSender {
        func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
        func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
        func cancel(_ challenge: URLAuthenticationChallenge) {}
        func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
        func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
    }
#endif
