import Dispatch
import Testing

@testable import Downstream

/// Narrowing 64-bit quantities where `Int` may have 32 bits (watchOS): checked or clamped, never
/// a trap. `.ci/check-narrowing` fails on any other conversion.
struct NarrowingTests {
    @Test func aClampedByteCountIsTheSmallerOfTheTwo() {
        #expect(Int.clamped(10, atMost: 64) == 10)
        #expect(Int.clamped(64, atMost: 64) == 64)
        #expect(Int.clamped(5 << 30, atMost: 1 << 20) == 1 << 20)
        #expect(Int.clamped(.max, atMost: 4096) == 4096)
        #expect(Int.clamped(-3, atMost: 4096) == -3)
        #expect(Int64(1 << 40).fileOffset == 1 << 40)
    }

    /// Nanoseconds while their count fits an `Int`, then milliseconds, then seconds: on a 32-bit
    /// `Int` nanoseconds end at 2.1 s, and a timer of 5 s must not trap there.
    @Test func aDispatchIntervalUsesAUnitWhoseCountFits() {
        #expect(Duration.milliseconds(1500).dispatchInterval == .nanoseconds(1_500_000_000))
        #expect(Duration.seconds(3600).dispatchInterval == .nanoseconds(3_600_000_000_000))
        // Past Int64's nanoseconds (292 years), milliseconds; past those, seconds.
        #expect(Duration.seconds(Int64.max / 1000).dispatchInterval == .milliseconds(Int(Int64.max / 1000) * 1000))
        #expect(Duration.seconds(Int64.max).dispatchInterval == .seconds(Int(Int64.max)))
    }
}
