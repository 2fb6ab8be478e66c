internal import CCurl
import Foundation

/// MD5 (RFC 1321), for servers that still publish it (`Content-MD5`, old mirrors). Broken for
/// security: it detects damage, not tampering.
struct MD5Compression: BlockCompression {
    static var lengthIsBigEndian: Bool { false }

    /// `floor(2³² · |sin(i + 1)|)`, as RFC 1321 defines the table.
    private static let sineTable: [UInt32] = (0..<64).map { UInt32(4_294_967_296 * abs(sin(Double($0 + 1)))) }
    /// The rotation of each step: four per round, repeated.
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)

    init() {}

    mutating func compress(_ block: UnsafeRawBufferPointer) {
        Self.sineTable.withUnsafeBufferPointer { sines in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { words in
                for index in 0..<16 {
                    words[index] = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                }
                var (a, b, c, d) = state
                for step in 0..<64 {
                    let round = step / 16
                    let mixed: UInt32
                    let wordIndex: Int
                    switch round {
                    case 0:
                        mixed = (b & c) | (~b & d)
                        wordIndex = step
                    case 1:
                        mixed = (d & b) | (~d & c)
                        wordIndex = (5 * step + 1) % 16
                    case 2:
                        mixed = b ^ c ^ d
                        wordIndex = (3 * step + 5) % 16
                    default:
                        mixed = c ^ (b | ~d)
                        wordIndex = (7 * step) % 16
                    }
                    let sum = mixed &+ a &+ sines[step] &+ words[wordIndex]
                    a = d
                    d = c
                    c = b
                    b = b &+ sum.rotatedLeft(Self.shifts[round * 4 + step % 4])
                }
                state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
            }
        }
    }

    mutating func compressOnPlatform(_ blocks: UnsafeRawBufferPointer) -> Bool {
        guard let base = blocks.baseAddress else { return true }
        return withUnsafeMutablePointer(to: &state) { tuple in
            tuple.withMemoryRebound(to: UInt32.self, capacity: 4) { words in
                ds_md5_blocks(words, base, blocks.count / 64) == 1
            }
        }
    }

    var words: [UInt32] {
        [state.0, state.1, state.2, state.3]
    }

    init?(words: [UInt32]) {
        guard words.count == 4 else { return nil }
        state = (words[0], words[1], words[2], words[3])
    }

    var digest: [UInt8] {
        [state.0, state.1, state.2, state.3].flatMap(\.littleEndianBytes)
    }
}
