@testable import Downstream
import Testing

/// The token bucket of bandwidth limits: a burst, then exactly the rate, whatever the chunks.
struct TokenBucketTests {
    @Test func aFullBucketLetsItsBurstGoThenWaitsForTheDebtToBePaid() {
        var bucket = TokenBucket(rate: 100_000, at: .zero)
        #expect(bucket.burst == 16_384)
        #expect(bucket.take(16_384, at: .zero) == nil)
        // Not in debt (empty): one more chunk goes, into debt.
        #expect(bucket.take(10_000, at: .zero) == nil)
        // 10,000 bytes of debt at 100,000 bytes/s: 0.1 s.
        #expect(bucket.take(1, at: .zero) == .milliseconds(100))
        #expect(bucket.take(1, at: .milliseconds(99)) == .milliseconds(1))
        #expect(bucket.take(16_384, at: .milliseconds(100)) == nil)
    }

    @Test func overAnyStretchTheBytesTakenAreAtMostTheRateTimesTheTimePlusABurstAndAChunk() {
        var generator = SystemRandomNumberGenerator()
        let rate = 1_000_000
        var bucket = TokenBucket(rate: rate, at: .zero)
        var now = Duration.zero
        var taken = 0
        var largest = 0
        // A sender that sends as soon as it may, with chunks of any size, for 10 simulated seconds.
        while now < .seconds(10) {
            let chunk = Int.random(in: 1...200_000, using: &generator)
            if let wait = bucket.take(chunk, at: now) {
                now += wait
            } else {
                taken += chunk
                largest = max(largest, chunk)
                let seconds = Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18
                #expect(Double(taken) <= Double(rate) * seconds + Double(bucket.burst + largest) + 1)
            }
        }
        // And it does not fall behind the rate either: within a burst and a chunk of it.
        #expect(Double(taken) >= Double(rate) * 10 - Double(bucket.burst + largest))
    }

    @Test func aNewRateKeepsTheDebtAndPaysItAtTheNewRate() {
        var bucket = TokenBucket(rate: 100_000, at: .zero)
        _ = bucket.take(16_384 + 50_000, at: .zero)
        #expect(bucket.wait(at: .zero) == .milliseconds(500))
        bucket.change(rate: 500_000, at: .zero)
        #expect(bucket.wait(at: .zero) == .milliseconds(100))
        #expect(bucket.burst == 50_000)
    }
}
