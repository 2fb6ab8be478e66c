import Testing

@testable import Downstream

@Suite(.timeLimit(.minutes(1)))
struct ThrottledValueTests {
    /// Records what a throttled value delivers.
    final class Deliveries: Sendable {
        let values = Locked<[Int]>([])
        let stream: AsyncStream<Int>
        let continuation: AsyncStream<Int>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream()
        }

        func take(_ value: Int) {
            values.withLock { $0.append(value) }
            continuation.yield(value)
        }
    }

    @Test func aBurstPublishesItsFirstChangeAtOnceAndItsLastAfterTheInterval() async {
        let deliveries = Deliveries()
        // Long enough that no pause of a loaded machine splits the burst.
        let value = ThrottledValue(0, interval: .seconds(2), publish: { value, _ in value }) {
            deliveries.take($0)
        }
        for _ in 1...10 {
            value.change { $0 += 1 }
        }
        #expect(deliveries.values.withLock { $0 } == [1])
        // The trailing publication brings the last change.
        for await delivered in deliveries.stream where delivered == 10 { break }
        #expect(deliveries.values.withLock { $0.first } == 1)
        #expect(deliveries.values.withLock { $0.last } == 10)
    }

    @Test func publishingNowIgnoresTheInterval() {
        let deliveries = Deliveries()
        let value = ThrottledValue(0, interval: .seconds(60), publish: { value, _ in value }) {
            deliveries.take($0)
        }
        value.change { $0 = 1 }
        value.publishNow { value, _ in
            value = 2
            return value
        }
        value.change { $0 = 3 }
        #expect(deliveries.values.withLock { $0 } == [1, 2])
    }

    @Test func aTrailingPublicationIsNotMadeAfterAPublicationNow() async {
        // A download's last value (published at once) is its last: a trailing publication
        // scheduled before it must not follow it (monitors logged progress after completion).
        let deliveries = Deliveries()
        let value = ThrottledValue(0, interval: .milliseconds(50), publish: { value, _ in value }) {
            deliveries.take($0)
        }
        value.change { $0 = 1 }
        value.change { $0 = 2 }
        value.publishNow { value, _ in
            value = 3
            return value
        }
        // The timer thread runs its timers in the order of their deadlines: when this one runs,
        // the trailing publication's time has come and gone.
        let (passed, pass) = AsyncStream<Void>.makeStream()
        TimerThread.shared.schedule(after: .milliseconds(200)) { pass.yield() }
        for await _ in passed { break }
        // [1, 3]; or [1, 2, 3] when a loaded machine let the interval pass between the changes.
        let delivered = deliveries.values.withLock { $0 }
        #expect(delivered.last == 3)
        #expect(delivered.filter { $0 == 3 }.count == 1, "\(delivered)")
    }

    /// A trailing publication may run late (its timer has a tolerance): a change after the
    /// interval then publishes at once, and the trailing publication is not made as well.
    @Test func aChangeAfterTheIntervalPublishesAndALateTrailingOneIsNotMade() {
        var throttle = ThrottledValue<Int, Int>.Throttle(interval: .milliseconds(100))
        #expect(throttle.decide(at: .zero) == .publish)
        throttle.published(at: .zero)
        #expect(throttle.decide(at: .milliseconds(50)) == .schedule(.milliseconds(50), trailing: 1))
        #expect(throttle.decide(at: .milliseconds(80)) == .wait)
        // 110 ms: the trailing publication's timer has not run yet.
        #expect(throttle.decide(at: .milliseconds(110)) == .publish)
        throttle.published(at: .milliseconds(110))
        let lateIsDue = throttle.trailingIsDue(1)
        #expect(!lateIsDue)
        // The next burst gets a trailing publication of its own.
        #expect(throttle.decide(at: .milliseconds(150)) == .schedule(.milliseconds(60), trailing: 2))
        let nextIsDue = throttle.trailingIsDue(2)
        #expect(nextIsDue)
    }

    @Test func deliveryRunsAfterTheLockIsReleased() {
        let box = Locked<ThrottledValue<Int, Int>?>(nil)
        let seen = Locked<[Int]>([])
        let value = ThrottledValue(0, interval: .zero, publish: { value, _ in value }) { delivered in
            // Under the lock, this would never return.
            let current = box.withLock { $0 }?.withLock { $0 }
            seen.withLock { $0.append(current ?? -1) }
        }
        box.withLock { $0 = value }
        value.change { $0 = 7 }
        #expect(seen.withLock { $0 } == [7])
    }
}
