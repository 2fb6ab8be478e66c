import Downstream
import Foundation

extension Body {
    /// `body` as a gzip file (RFC 1952) made of stored deflate blocks: decoders must decode it,
    /// and it is as large as `body` and 5 bytes per 64 KiB, plus 18.
    ///
    /// Serve it with `Content-Encoding: gzip` to test what a client makes of a compressed body:
    ///
    /// ```swift
    /// let file = Body.pattern(count: 1_000_000)
    /// var route = Route(body: .gzip(file))
    /// route.extraHeaders["Content-Encoding"] = "gzip"
    /// ```
    ///
    /// Its bytes are made as they are sent; its trailer's CRC-32 reads `body` once, when the
    /// trailer is first sent (on the server's thread, not the caller's).
    public static func gzip(_ body: Body) -> Body {
        var pieces: [BodyPieces.Piece] = [.bytes(GzipFormat.header)]
        let blockSize: Int64 = 65_535
        var offset: Int64 = 0
        repeat {
            let length = min(blockSize, body.count - offset)
            let isLast = offset + length == body.count
            let stored = UInt16(length)
            pieces.append(.bytes([isLast ? 1 : 0] + GzipFormat.littleEndian(stored) + GzipFormat.littleEndian(~stored)))
            if length > 0 { pieces.append(.slice(body, start: offset, count: length)) }
            offset += length
        } while offset < body.count
        pieces.append(
            .later(
                LaterBytes(count: 8) {
                    var crc: UInt32 = 0
                    body.write(0..<body.count) { crc = CRC32.checksum($0, continuing: crc) }
                    return GzipFormat.trailer(crc: crc, count: body.count)
                }))
        return Body(storage: .pieces(BodyPieces(pieces)))
    }

    /// A gzip file of `count` zero bytes, about a thousandth of their size (1 GiB in 1 MB, as
    /// `gzip -9` makes it): a compression bomb, for testing that a client bounds what a body
    /// decodes to.
    ///
    /// ```swift
    /// var route = Route(body: .gzippedZeros(count: 1 << 30))
    /// route.extraHeaders["Content-Encoding"] = "gzip"
    /// ```
    ///
    /// One deflate block of matches 258 bytes long, 2 bits each; its bytes are made as they are
    /// sent, and making it costs nothing.
    public static func gzippedZeros(count: Int64) -> Body {
        precondition(count > 0, "a compression bomb has at least one byte")
        return Body(storage: .pieces(GzipFormat.zeros(count: count)))
    }
}

/// Bytes one after the other: given bytes, zeros, or a part of another body.
final class BodyPieces: Sendable {
    enum Piece: Sendable {
        case bytes([UInt8])
        case zeros(Int64)
        case slice(Body, start: Int64, count: Int64)
        /// Bytes made when first read.
        case later(LaterBytes)

        var count: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .zeros(let count), .slice(_, _, let count): count
            case .later(let bytes): Int64(bytes.count)
            }
        }
    }

    let pieces: [Piece]
    /// Where each piece starts.
    let starts: [Int64]
    let count: Int64

    init(_ pieces: [Piece]) {
        self.pieces = pieces
        var starts: [Int64] = []
        var offset: Int64 = 0
        for piece in pieces {
            starts.append(offset)
            offset += piece.count
        }
        self.starts = starts
        count = offset
    }

    /// Writes the bytes from `offset` into all of `buffer`; the caller checked bounds.
    func fill(from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) {
        // The last piece that starts at or before `offset`.
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        var index = low
        var position = offset
        var written = 0
        while written < buffer.count {
            let piece = pieces[index]
            let within = position - starts[index]
            // An index into a piece's bytes, which are in memory: the clamp never changes it.
            let start = Int(clamping: within)
            let length = Int.clamped(piece.count - within, atMost: buffer.count - written)
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + length)])
            switch piece {
            case .bytes(let bytes):
                bytes.withUnsafeBytes { source in
                    target.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: source[start..<(start + length)]))
                }
            case .later(let later):
                later.bytes.withUnsafeBytes { source in
                    target.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: source[start..<(start + length)]))
                }
            case .zeros:
                target.initializeMemory(as: UInt8.self, repeating: 0)
            case .slice(let body, let start, _):
                body.fill(from: start + within, into: target)
            }
            written += length
            position += Int64(length)
            index += 1
        }
    }
}

/// Bytes of a known count, made once, when first read: a pass over a large body is paid by the
/// server's thread that sends them, not by whoever makes the body (a test, on a thread of Swift's
/// pool, of which there are as many as cores).
final class LaterBytes: @unchecked Sendable {
    // Safe: `made` is only touched under `lock`; the rest is immutable.
    let count: Int
    private let make: @Sendable () -> [UInt8]
    private let lock = NSLock()
    private var made: [UInt8]?

    init(count: Int, make: @escaping @Sendable () -> [UInt8]) {
        self.count = count
        self.make = make
    }

    var bytes: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let bytes = make()
        precondition(bytes.count == count, "made \(bytes.count) bytes, not \(count)")
        made = bytes
        return bytes
    }
}

/// The parts of gzip (RFC 1952) and deflate (RFC 1951) the test bodies use.
enum GzipFormat {
    /// A member's header: deflate, no flags, no time, no extra flags, an unknown system.
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]

    static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }
    }

    /// A member's trailer: the decoded bytes' CRC-32 and their count modulo 2^32.
    static func trailer(crc: UInt32, count: Int64) -> [UInt8] {
        littleEndian(crc) + littleEndian(UInt32(truncatingIfNeeded: count))
    }

    /// `count` zero bytes as one dynamic deflate block: a literal zero, `matches` matches of 258
    /// bytes at distance 1 (2 bits each: both codes are one bit, `0`), literal zeros for the rest.
    /// The matches' bytes are zeros, made as they are sent.
    static func zeros(count: Int64) -> BodyPieces {
        var prefix = BitWriter()
        prefix.bytes = header
        // BFINAL, BTYPE 2 (dynamic); 286 literal/length codes, 1 distance code, 18 code-length codes.
        prefix.write(1, bits: 1)
        prefix.write(2, bits: 2)
        prefix.write(286 - 257, bits: 5)
        prefix.write(0, bits: 5)
        prefix.write(18 - 4, bits: 4)
        // Code-length codes in their order (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2,
        // 14, 1): 18 (runs of zeros) has 1 bit, 1 and 2 have 2.
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
        for symbol in order {
            prefix.write(symbol == 18 ? 1 : (symbol == 1 || symbol == 2) ? 2 : 0, bits: 3)
        }
        // Canonical codes: 18 is `0`, 1 is `10`, 2 is `11`.
        func length2() { prefix.writeCode(0b11, length: 2) }
        func length1() { prefix.writeCode(0b10, length: 2) }
        func zeroRun(_ run: Int) {
            prefix.writeCode(0, length: 1)
            prefix.write(UInt32(run - 11), bits: 7)
        }
        // Literal 0: 2 bits; literals 1-255: none; end of block (256): 2 bits; lengths 257-284:
        // none; 285 (length 258): 1 bit; distance 0 (distance 1): 1 bit.
        length2()
        zeroRun(138)
        zeroRun(117)
        length2()
        zeroRun(28)
        length1()
        length1()
        // The data: the literal zero (`10`), then the matches, then the rest as literals.
        prefix.writeCode(0b10, length: 2)
        let matches = (count - 1) / 258
        let literals = Int(clamping: count - 1 - matches * 258)  // below 258
        // The matches' bits are zeros; they start `prefix.bitCount` bits in.
        let matchBits = 2 * matches
        let zeroEnd = prefix.bitCount + matchBits
        var suffix = BitWriter()
        suffix.write(0, bits: Int(clamping: zeroEnd % 8))
        for _ in 0..<literals { suffix.writeCode(0b10, length: 2) }
        suffix.writeCode(0b11, length: 2)
        suffix.flush()
        let trailer = trailer(crc: ZeroCRC.checksum(count: count), count: count)
        prefix.flush()
        // Bytes after the prefix (whose padding bits are the first matches' zeros) up to the one the
        // suffix starts in are zeros.
        let prefixBytes = prefix.bytes
        let zeroBytes = zeroEnd / 8 - Int64(prefixBytes.count)
        if zeroBytes >= 0 {
            return BodyPieces([.bytes(prefixBytes), .zeros(zeroBytes), .bytes(suffix.bytes + trailer)])
        }
        // Few matches: the prefix's last byte and the suffix's first are one byte.
        var merged = prefixBytes
        merged[merged.count - 1] |= suffix.bytes[0]
        return BodyPieces([.bytes(merged + suffix.bytes.dropFirst() + trailer)])
    }
}

/// Writes bits least significant first, as deflate packs them.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// Every bit written so far, counted from the first byte.
    var bitCount: Int64 { Int64(bytes.count) * 8 + Int64(pendingCount) }

    mutating func write(_ value: UInt32, bits: Int) {
        pending |= UInt64(value) << pendingCount
        pendingCount += bits
        while pendingCount >= 8 {
            bytes.append(UInt8(pending & 0xFF))
            pending >>= 8
            pendingCount -= 8
        }
    }

    /// A Huffman code, which deflate packs from its most significant bit.
    mutating func writeCode(_ code: UInt32, length: Int) {
        var reversed: UInt32 = 0
        for bit in 0..<length where code & (1 << (length - 1 - bit)) != 0 {
            reversed |= 1 << bit
        }
        write(reversed, bits: length)
    }

    /// Pads the last byte with zero bits.
    mutating func flush() {
        if pendingCount > 0 { write(0, bits: 8 - pendingCount) }
    }
}

/// The CRC-32 of zero bytes, in logarithmic time: multiplying by x^(8n) modulo the CRC's
/// polynomial is what n zero bytes do to the register.
enum ZeroCRC {
    private static let polynomial: UInt32 = 0xEDB8_8320

    /// The CRC-32 of `count` zero bytes.
    static func checksum(count: Int64) -> UInt32 {
        ~multiply(powerOfX(bits: count), 0xFFFF_FFFF)
    }

    /// a × b modulo the polynomial, in the CRC's reflected form (x^0 is the top bit).
    private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var a = a
        var b = b
        var product: UInt32 = 0
        while a != 0 {
            if a & 0x8000_0000 != 0 { product ^= b }
            a <<= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return product
    }

    /// x^(8 × bytes) modulo the polynomial.
    private static func powerOfX(bits bytes: Int64) -> UInt32 {
        var result: UInt32 = 0x8000_0000
        // x^8, squared for each bit of the count.
        var square: UInt32 = 0x0080_0000
        var remaining = UInt64(bytes)
        while remaining != 0 {
            if remaining & 1 != 0 { result = multiply(square, result) }
            square = multiply(square, square)
            remaining >>= 1
        }
        return result
    }
}
