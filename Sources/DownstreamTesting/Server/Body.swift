import Foundation

/// The bytes a ``Route`` serves: either given ``data(_:)`` or a deterministic
/// ``pattern(count:seed:)`` generated on the fly, so that huge bodies cost no memory.
public struct Body: Sendable {
    enum Storage: Sendable {
        case pattern(PatternTable, count: Int64)
        case data(Data)
        /// Pieces one after the other (a compressed body: see `Body+Gzip.swift`).
        case pieces(BodyPieces)
    }

    let storage: Storage

    /// The largest block ``write(_:into:)`` hands out for a pattern body.
    static let patternBlockSize = 256 * 1024

    /// A body of `count` deterministic pseudo-random bytes.
    ///
    /// The bytes are generated on demand (about 128 KiB of memory whatever `count` is) at
    /// `memcpy` speed. Byte `i` is entry `i % 65521` of a table drawn from `seed`, except
    /// that the first 8 bytes of every 65521-byte period encode the period's number; so no
    /// two windows of a few KiB at different offsets are alike, and shifted, reordered or
    /// duplicated blocks of any size are detected by ``firstMismatch(inFileAt:)``.
    public static func pattern(count: Int64, seed: UInt64 = 0) -> Body {
        precondition(count >= 0, "a body cannot have a negative length")
        return Body(storage: .pattern(PatternTable(seed: seed), count: count))
    }

    /// A body made of exactly these bytes.
    public static func data(_ data: Data) -> Body {
        Body(storage: .data(data))
    }

    /// The number of bytes in the body.
    public var count: Int64 {
        switch storage {
        case .pattern(_, let count): count
        case .data(let data): Int64(data.count)
        case .pieces(let pieces): pieces.count
        }
    }

    /// The bytes at `range`, which must lie within the body. Meant for small ranges.
    public func bytes(_ range: Range<Int64>) -> Data {
        checkBounds(range)
        guard let count = Int(exactly: range.upperBound - range.lowerBound) else {
            preconditionFailure("\(range) holds more bytes than fit in memory")
        }
        var result = Data(count: count)
        result.withUnsafeMutableBytes { buffer in
            fill(from: range.lowerBound, into: buffer)
        }
        return result
    }

    /// Streams the bytes at `range`, which must lie within the body, to `body` in
    /// consecutive blocks (at most 256 KiB each for a pattern). A buffer is only valid
    /// during the call that receives it.
    public func write(
        _ range: Range<Int64>,
        into body: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        checkBounds(range)
        guard !range.isEmpty else { return }
        switch storage {
        case .data(let data):
            try data.withUnsafeBytes { buffer in
                // Indexes into bytes in memory, bounds checked: the clamps never change them.
                let slice = buffer[Int(clamping: range.lowerBound)..<Int(clamping: range.upperBound)]
                try body(UnsafeRawBufferPointer(rebasing: slice))
            }
        case .pattern, .pieces:
            let blockSize = Int.clamped(range.upperBound - range.lowerBound, atMost: Body.patternBlockSize)
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
            defer { block.deallocate() }
            var offset = range.lowerBound
            while offset < range.upperBound {
                let length = Int.clamped(range.upperBound - offset, atMost: blockSize)
                let part = UnsafeMutableRawBufferPointer(rebasing: block[0..<length])
                fill(from: offset, into: part)
                try body(UnsafeRawBufferPointer(part))
                offset += Int64(length)
            }
        }
    }

    /// Writes the bytes starting at `offset` into all of `buffer`; the caller checked bounds.
    func fill(from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) {
        guard buffer.count > 0 else { return }
        switch storage {
        case .data(let data):
            data.withUnsafeBytes { source in
                let start = Int(clamping: offset)  // in memory, bounds checked by the caller
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + buffer.count)]))
            }
        case .pattern(let table, _):
            table.fill(from: offset, into: buffer)
        case .pieces(let pieces):
            pieces.fill(from: offset, into: buffer)
        }
    }

    private func checkBounds(_ range: Range<Int64>) {
        precondition(
            range.lowerBound >= 0 && range.upperBound <= count,
            "range \(range) is outside a body of \(count) bytes"
        )
    }
}
