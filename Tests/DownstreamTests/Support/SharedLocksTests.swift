import Dispatch
import Testing

@testable import Downstream

/// Many objects share a few mutexes: each object's state is still changed by one thread at a
/// time, and the objects spread over all the mutexes.
struct SharedLocksTests {
    final class Counter: @unchecked Sendable {
        // Safe: only touched under the counter's lock of the test's `SharedLocks`.
        var value = 0
        var isInside = false
    }

    @Test func anObjectsStateIsChangedByOneThreadAtATime() {
        let counters = (0..<4).map { _ in Counter() }
        let overlaps = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4 * 5_000) { iteration in
            // Threads take neighbouring iterations: in runs of 100, they share a counter.
            let counter = counters[iteration / 100 % counters.count]
            SharedLocks.records.withLock(for: counter) {
                if counter.isInside { overlaps.withLock { $0 += 1 } }
                counter.isInside = true
                // A read, then a write: two threads at once would lose an increment.
                let value = counter.value
                // A while, for another thread to come in if it could.
                var reads = 0
                while reads < 100, counter.isInside { reads += 1 }
                counter.value = value + 1
                counter.isInside = false
            }
        }
        #expect(counters.map(\.value) == Array(repeating: 5_000, count: 4))
        #expect(overlaps.withLock { $0 } == 0)
    }

    @Test func objectsSpreadOverEveryMutex() {
        let objects = (0..<6_400).map { _ in Counter() }
        var perMutex = [Int](repeating: 0, count: 64)
        for object in objects {
            perMutex[SharedLocks.index(of: object)] += 1
        }
        // 100 each on average; an uneven spread would make unrelated downloads wait.
        #expect(perMutex.allSatisfy { $0 > 0 })
        #expect(perMutex.max()! < 300)
    }
}
