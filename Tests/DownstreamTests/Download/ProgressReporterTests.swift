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

    /// Throttling is on the manager's clock: a change within the interval is published when that
    /// clock reaches the interval's end, not when the machine's does.
    @Test func theTrailingUpdateComesWhenTheInjectedClockReachesTheIntervalsEnd() async {
        let clock = ManualClock()
        let (updates, delivered) = AsyncStream<Download.ProgressUpdate>.makeStream()
        let reporter = ProgressReporter(interval: .seconds(1), clock: ClockReadings(clock)) { delivered.yield($0) }
        var received = updates.makeAsyncIterator()
        reporter.begin(bytesReceived: 10, expectedBytes: 100)
        #expect(await received.next()?.progress.bytesReceived == 10)
        var sleeps = clock.sleeps.makeAsyncIterator()
        reporter.add(5)
        // Within the interval: a trailing update waits for the rest of it, on the manual clock.
        #expect(await sleeps.next() == .seconds(1))
        #expect(reporter.latest.sequence == 1)
        clock.advance(by: .seconds(1))
        let trailing = await received.next()
        #expect(trailing?.progress.bytesReceived == 15)
        #expect(trailing?.sequence == 2)
    }

    /// A stall: no byte comes after the last chunk. The value is published again each interval,
    /// its speed falling, until it is 0 with no time remaining; then nothing is scheduled.
    @Test func aStalledDownloadsSpeedFallsToZeroThenNothingWaits() async {
        let clock = ManualClock()
        let (updates, delivered) = AsyncStream<Download.ProgressUpdate>.makeStream()
        let reporter = ProgressReporter(interval: .seconds(1), clock: ClockReadings(clock)) { delivered.yield($0) }
        var received = updates.makeAsyncIterator()
        reporter.begin(bytesReceived: 0, expectedBytes: 10_000)
        _ = await received.next()
        #expect(clock.scheduledActions == 0, "no speed yet: nothing to settle")
        clock.advance(by: .seconds(1))
        reporter.add(1_000)
        var update = await received.next()
        #expect(update?.progress.bytesPerSecond == 1_000)
        #expect(update?.progress.estimatedTimeRemaining == .seconds(9))

        var speeds: [Double] = []
        while let speed = update?.progress.bytesPerSecond, speed > 0 {
            speeds.append(speed)
            #expect(clock.scheduledActions == 1)
            clock.advance(by: .seconds(1))
            update = await received.next()
            #expect(update?.progress.bytesReceived == 1_000)
            if speeds.count > 10 { break }
        }
        #expect(update?.progress.bytesPerSecond == 0, "\(speeds)")
        #expect(update?.progress.estimatedTimeRemaining == nil)
        #expect(speeds.count <= 3, "\(speeds)")
        #expect(zip(speeds, speeds.dropFirst()).allSatisfy { $0 > $1 }, "\(speeds)")
        #expect(clock.scheduledActions == 0)

        // Bytes again: published at once, and a speed again.
        clock.advance(by: .seconds(5))
        reporter.add(500)
        #expect((await received.next()?.progress.bytesPerSecond ?? 0) > 0)
    }
}
