@testable import Downstream
import Foundation
import Testing

/// The timer thread of progress throttles: every action runs, never before its delay, and a
/// timer due sooner than the one the thread sleeps for is not held back by it.
@Suite(.timeLimit(.minutes(1)))
struct TimerThreadTests {
    @Test func everyActionRunsOnceAndNeverBeforeItsDelay() async {
        let timers = TimerThread()
        let (ran, run) = AsyncStream<(early: Bool, index: Int)>.makeStream()
        for index in 0..<50 {
            let delay = Duration.milliseconds(Int.random(in: 0...40))
            let scheduled = ContinuousClock.now
            timers.schedule(after: delay) {
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
}
