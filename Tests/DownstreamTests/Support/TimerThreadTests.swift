@testable import Downstream
import Foundation
import Testing

/// The timer thread of progress throttles: every action runs, never before its delay, a timer
/// due sooner than the one the thread sleeps for is not held back by it, and timers due within
/// each other's tolerance run together.
@Suite(.timeLimit(.minutes(1)))
struct TimerThreadTests {
    @Test func everyActionRunsOnceAndNeverBeforeItsDelay() async {
        let timers = TimerThread()
        let (ran, run) = AsyncStream<(early: Bool, index: Int)>.makeStream()
        for index in 0..<50 {
            let delay = Duration.milliseconds(Int.random(in: 0...40))
            // Half of them may run late: a tolerance never makes a timer early.
            let tolerance = index.isMultiple(of: 2) ? .zero : Duration.milliseconds(Int.random(in: 1...40))
            let scheduled = ContinuousClock.now
            timers.schedule(after: delay, tolerance: tolerance) {
                run.yield((ContinuousClock.now < scheduled + delay, index))
            }
        }
        var seen = Set<Int>()
        for await (early, index) in ran {
            #expect(!early, "timer \(index) ran before its delay")
            #expect(seen.insert(index).inserted, "timer \(index) ran twice")
            if seen.count == 50 { break }
        }
    }

    @Test func aSoonerTimerWakesTheThreadThatSleepsForALaterOne() async {
        let timers = TimerThread()
        let (ran, run) = AsyncStream<(name: String, after: Duration)>.makeStream()
        let scheduled = ContinuousClock.now
        timers.schedule(after: .seconds(3600)) { run.yield(("late", ContinuousClock.now - scheduled)) }
        // The thread sleeps until the late one now; the sooner one must wake it. (Timed on the
        // timer thread, as it runs: this test's task may wait for the concurrency pool longer.)
        timers.schedule(after: .milliseconds(10)) { run.yield(("soon", ContinuousClock.now - scheduled)) }
        for await (name, after) in ran {
            #expect(name == "soon")
            #expect(after < .seconds(30))
            break
        }
    }

    /// Timers due within each other's tolerance run in one wake-up of the thread: none runs at
    /// its own deadline, all run once the tolerance of the first has passed.
    @Test func timersDueAboutTheSameTimeRunTogether() async {
        let timers = TimerThread()
        let (ran, run) = AsyncStream<Duration>.makeStream()
        // The thread runs, and sleeps with no timer.
        timers.schedule(after: .zero) { run.yield(.zero) }
        var iterator = ran.makeAsyncIterator()
        _ = await iterator.next()

        let scheduled = ContinuousClock.now
        for index in 0..<20 {
            timers.schedule(after: .milliseconds(300 + index), tolerance: .milliseconds(500)) {
                run.yield(ContinuousClock.now - scheduled)
            }
        }
        for _ in 0..<20 {
            let after = await iterator.next()
            // Not at 300 ms, at its own deadline: with the last one, at 800 ms or later.
            #expect(after.map { $0 >= .milliseconds(319) } == true, "a timer ran after \(after ?? .zero)")
        }
    }
}
