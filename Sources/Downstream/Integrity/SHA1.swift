internal import CCurl

/// SHA-1 (FIPS 180-4, section 6.1), for servers that still publish it. Not collision resistant:
/// it detects damage, not tampering.
struct SHA1Compression: BlockCompression {
    static var lengthIsBigEndian: Bool { true }

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )

    init() {}

    mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<80 {
                w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotatedLeft(1)
            }
            var (a, b, c, d, e) = state
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20:
                    f = (b & c) | (~b & d)
                    k = 0x5A82_7999
                case 20..<40:
                    f = b ^ c ^ d
                    k = 0x6ED9_EBA1
                case 40..<60:
                    f = (b & c) | (b & d) | (c & d)
                    k = 0x8F1B_BCDC
                default:
                    f = b ^ c ^ d
                    k = 0xCA62_C1D6
                }
                let temporary = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[t]
                e = d
                d = c
                c = b.rotatedLeft(30)
                b = a
                a = temporary
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
    }

    mutating func compressOnPlatform(_ blocks: UnsafeRawBufferPointer) -> Bool {
        guard let base = blocks.baseAddress else { return true }
        return withUnsafeMutablePointer(to: &state) { tuple in
            tuple.withMemoryRebound(to: UInt32.self, capacity: 5) { words in
                ds_sha1_blocks(words, base, blocks.count / 64) == 1
            }
        }
    }

    var words: [UInt32] {
        [state.0, state.1, state.2, state.3, state.4]
    }

    init?(words: [UInt32]) {
        guard words.count == 5 else { return nil }
        state = (words[0], words[1], words[2], words[3], words[4])
    }

    var digest: [UInt8] {
        [state.0, state.1, state.2, state.3, state.4].flatMap(\.bigEndianBytes)
    }
}
