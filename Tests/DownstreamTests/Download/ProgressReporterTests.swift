import Dispatch
import Testing

@testable import Downstream

/// The reporter hands its values to its observer outside its lock, numbered, so that values from
/// threads that publish at once never leave the totals behind.
@Suite(.timeLimit(.minutes(1)))
struct ProgressReporterTests {
    @Test func theObserverIsCalledOutsideTheLockWithIncreasingNumbers() {
        let box = Locked<ProgressReporter?>(nil)
        let updates = Locked<[(sequence: UInt64, bytes: Int64, current: Int64)]>([])
        let reporter = ProgressReporter(interval: .zero) { update in
            // Under the reporter's lock, reading its current value would never return.
            let current = box.withLock { $0 }?.current.bytesReceived ?? -1
            updates.withLock { $0.append((update.sequence, update.progress.bytesReceived, current)) }
        }
        box.withLock { $0 = reporter }
        reporter.begin(bytesReceived: 10, expectedBytes: 100)
        reporter.add(5)
        reporter.stop(finishing: true)
        let delivered = updates.withLock { $0 }
        #expect(delivered.map(\.sequence) == [1, 2, 3])
        #expect(delivered.map(\.bytes) == [10, 15, 15])
        #expect(delivered.map(\.current) == [10, 15, 15])
        #expect(reporter.latest.sequence == 3)
    }

    @Test func totalsKeepTheNewestValueWhenThreadsPublishAtOnce() {
        let id = Download.ID()
        let totals = ProgressTotals(interval: .zero)
        let reporter = ProgressReporter(interval: .zero) { update in
            totals.update(id, update)
        }
        totals.track(id, reporter.latest, state: .running)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 {
                reporter.add(1)
            }
        }
        #expect(reporter.current.bytesReceived == 8000)
        #expect(totals.current.bytesReceived == 8000)
    }
}
