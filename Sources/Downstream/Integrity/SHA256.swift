internal import CCurl
import Foundation

/// SHA-256 (FIPS 180-4, section 6.2).
struct SHA256Compression: BlockCompression {
    static var lengthIsBigEndian: Bool { true }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = firstPrimes(64).map { fractionBits(cubeRoot: Double($0)) }

    /// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
    private static let initialState: [UInt32] = firstPrimes(8).map { fractionBits(squareRoot: Double($0)) }

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    init() {
        let initial = Self.initialState
        state = (initial[0], initial[1], initial[2], initial[3], initial[4], initial[5], initial[6], initial[7])
    }

    mutating func compress(_ block: UnsafeRawBufferPointer) {
        Self.roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for t in 0..<16 {
                    w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
                }
                for t in 16..<64 {
                    let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                    let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, h) = state
                // Eight rounds per pass, the variables' roles rotated instead of moved.
                var t = 0
                while t < 64 {
                    Self.round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
                    Self.round(h, a, b, &c, d, e, f, &g, k[t + 1] &+ w[t + 1])
                    Self.round(g, h, a, &b, c, d, e, &f, k[t + 2] &+ w[t + 2])
                    Self.round(f, g, h, &a, b, c, d, &e, k[t + 3] &+ w[t + 3])
                    Self.round(e, f, g, &h, a, b, c, &d, k[t + 4] &+ w[t + 4])
                    Self.round(d, e, f, &g, h, a, b, &c, k[t + 5] &+ w[t + 5])
                    Self.round(c, d, e, &f, g, h, a, &b, k[t + 6] &+ w[t + 6])
                    Self.round(b, c, d, &e, f, g, h, &a, k[t + 7] &+ w[t + 7])
                    t += 8
                }
                state = (
                    state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                    state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
                )
            }
        }
    }

    mutating func compressOnPlatform(_ blocks: UnsafeRawBufferPointer) -> Bool {
        guard let base = blocks.baseAddress else { return true }
        return withUnsafeMutablePointer(to: &state) { tuple in
            tuple.withMemoryRebound(to: UInt32.self, capacity: 8) { words in
                ds_sha256_blocks(words, base, blocks.count / 64) == 1
            }
        }
    }

    var words: [UInt32] {
        [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
    }

    init?(words: [UInt32]) {
        guard words.count == 8 else { return nil }
        state = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
    }

    /// One round (FIPS 180-4, 6.2.2 step 3), written for variables whose roles rotate: `d`
    /// becomes the new `e` and `h` the new `a`.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32,
        _ h: inout UInt32, _ constantAndWord: UInt32
    ) {
        let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
        let choice = g ^ (e & (f ^ g))
        let t1 = h &+ sum1 &+ choice &+ constantAndWord
        let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
        let majority = (a & b) | (c & (a | b))
        d = d &+ t1
        h = t1 &+ sum0 &+ majority
    }

    var digest: [UInt8] {
        [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7].flatMap(\.bigEndianBytes)
    }

    static func firstPrimes(_ count: Int) -> [Int] {
        var primes: [Int] = []
        var candidate = 2
        while primes.count < count {
            if primes.allSatisfy({ candidate % $0 != 0 }) { primes.append(candidate) }
            candidate += 1
        }
        return primes
    }

    /// The first 32 bits after the binary point of the square root of `x`, exact: the largest
    /// `r` with `r² ≤ x · 2⁶⁴`, found from a floating-point estimate and checked in integers.
    static func fractionBits(squareRoot x: Double) -> UInt32 {
        let target = (high: UInt64(x), low: UInt64(0))
        return exactRoot(
            estimate: x.squareRoot(),
            fits: { r in
                let square = r.multipliedFullWidth(by: r)
                return (square.high, square.low) <= target
            })
    }

    /// The same for the cube root: the largest `r` with `r³ ≤ x · 2⁹⁶`.
    static func fractionBits(cubeRoot x: Double) -> UInt32 {
        let target = (high: UInt64(x) << 32, low: UInt64(0))
        return exactRoot(
            estimate: cbrt(x),
            fits: { r in
                let square = r.multipliedFullWidth(by: r)
                let low = square.low.multipliedFullWidth(by: r)
                let high = square.high.multipliedReportingOverflow(by: r)
                let top = high.partialValue.addingReportingOverflow(low.high)
                guard !high.overflow, !top.overflow else { return false }
                return (top.partialValue, low.low) <= target
            })
    }

    private static func exactRoot(estimate: Double, fits: (UInt64) -> Bool) -> UInt32 {
        var root = UInt64(estimate * 4_294_967_296)
        while !fits(root) { root -= 1 }
        while fits(root + 1) { root += 1 }
        return UInt32(truncatingIfNeeded: root)
    }
}

extension UInt32 {
    @inline(__always) func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }

    @inline(__always) func rotatedLeft(_ count: UInt32) -> UInt32 {
        (self << count) | (self >> (32 - count))
    }

    var bigEndianBytes: [UInt8] {
        [
            UInt8(self >> 24), UInt8(truncatingIfNeeded: self >> 16), UInt8(truncatingIfNeeded: self >> 8),
            UInt8(truncatingIfNeeded: self),
        ]
    }

    var littleEndianBytes: [UInt8] {
        bigEndianBytes.reversed()
    }
}
