/// The seeded table behind ``Body/pattern(count:seed:)``.
///
/// Byte `i` of a pattern is `table[i % period]`, except the first 8 bytes of each period,
/// which hold a mix of the seed and the period number (little-endian). The table is stored
/// twice in a row so that any run of up to `period` bytes is one contiguous copy.
final class PatternTable: Sendable {
    /// The period of the table: the largest prime below 65536, so that power-of-two block
    /// sizes never line up with it.
    static let period = 65521

    private let seed: UInt64
    private let doubled: [UInt8]

    init(seed: UInt64) {
        self.seed = seed
        let period = PatternTable.period
        var table = [UInt8](repeating: 0, count: 2 * period)
        var state = seed
        var index = 0
        while index < period {
            let word = PatternTable.splitMix(&state)
            var shift: UInt64 = 0
            while shift < 64 && index < period {
                table[index] = UInt8(truncatingIfNeeded: word >> shift)
                index += 1
                shift += 8
            }
        }
        for index in 0..<period {
            table[period + index] = table[index]
        }
        self.doubled = table
    }

    /// Writes the pattern bytes starting at `offset` into all of `buffer`.
    func fill(from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) {
        let total = buffer.count
        guard total > 0, let destination = buffer.baseAddress else { return }
        let period = PatternTable.period
        doubled.withUnsafeBytes { table in
            guard let source = table.baseAddress else { return }
            var written = 0
            var position = offset
            while written < total {
                let phase = Int.clamped(position % Int64(period), atMost: period)
                let length = min(total - written, period)
                (destination + written).copyMemory(from: source + phase, byteCount: length)
                written += length
                position += Int64(length)
            }
        }
        let end = offset + Int64(total)
        var periodNumber = offset / Int64(period)
        while periodNumber * Int64(period) < end {
            let markerStart = periodNumber * Int64(period)
            let marker = self.marker(forPeriod: periodNumber)
            for byteIndex in 0..<8 {
                let position = markerStart + Int64(byteIndex)
                if position >= offset && position < end {
                    buffer[Int.clamped(position - offset, atMost: total)] = UInt8(
                        truncatingIfNeeded: marker >> (8 * UInt64(byteIndex)))
                }
            }
            periodNumber += 1
        }
    }

    private func marker(forPeriod periodNumber: Int64) -> UInt64 {
        var state = seed ^ 0x5851_F42D_4C95_7F2D ^ (UInt64(bitPattern: periodNumber) &* 0xD6E8_FEB8_6659_FD93)
        return PatternTable.splitMix(&state)
    }

    /// SplitMix64: a tiny, well-mixed generator; advances `state` and returns the next value.
    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
