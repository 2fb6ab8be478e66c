/// The compression step of a Merkle–Damgård hash (SHA-1, SHA-256, SHA-512, MD5): the part that
/// differs between them. ``BlockHasher`` does the buffering and the padding they share.
protocol BlockCompression: Sendable {
    /// Whether the message length in the padding is big-endian (SHA) or little-endian (MD5).
    static var lengthIsBigEndian: Bool { get }
    /// Bytes per block: 64, or 128 for SHA-512 and SHA-384.
    static var blockSize: Int { get }
    /// Bytes of the message length at the end of the padding: 8, or 16 for SHA-512 and SHA-384.
    static var lengthFieldSize: Int { get }
    /// The state before any block.
    init()
    /// Folds one block into the state, in Swift.
    mutating func compress(_ block: UnsafeRawBufferPointer)
    /// Folds whole blocks into the state with the platform's code (`Digests.h`); false, with
    /// nothing done, where the platform has none.
    mutating func compressOnPlatform(_ blocks: UnsafeRawBufferPointer) -> Bool
    /// The digest of the state, in the algorithm's byte order.
    var digest: [UInt8] { get }
    /// The state's words, to be saved and restored with ``init(words:)``.
    var words: [UInt32] { get }
    /// A state saved from ``words``; nil if there are not as many words as the state has.
    init?(words: [UInt32])
}

extension BlockCompression {
    static var blockSize: Int { 64 }
    static var lengthFieldSize: Int { 8 }
}

/// Hashes a message given in pieces of any size, in constant memory: whole blocks go to the
/// compression as they come (the platform's, or Swift's: see ``DigestImplementation``), the rest
/// waits in a buffer of less than a block. The padding is done here, so the state is the same whoever
/// compresses, and a state saved by one goes on in the other.
struct BlockHasher<Compression: BlockCompression>: Sendable {
    static var blockSize: Int { Compression.blockSize }

    private var compression = Compression()
    private var pending: [UInt8] = []
    /// Bytes hashed so far.
    private(set) var length: UInt64 = 0
    /// Who compresses the blocks.
    let implementation: DigestImplementation

    init(implementation: DigestImplementation = .preferred) {
        self.implementation = implementation
        pending.reserveCapacity(Self.blockSize)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(Self.blockSize - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
            guard pending.count == Self.blockSize else { return }
            pending.withUnsafeBytes { Self.compress(&compression, $0, implementation) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count - rest.count % Self.blockSize
        if whole > 0 {
            Self.compress(&compression, UnsafeRawBufferPointer(rebasing: rest.prefix(whole)), implementation)
        }
        pending.append(contentsOf: rest.dropFirst(whole))
    }

    /// Folds whole blocks into `compression`, all in one call to the platform where it can.
    private static func compress(
        _ compression: inout Compression, _ blocks: UnsafeRawBufferPointer, _ implementation: DigestImplementation
    ) {
        if implementation == .platform, compression.compressOnPlatform(blocks) { return }
        var start = 0
        while start < blocks.count {
            compression.compress(UnsafeRawBufferPointer(rebasing: blocks[start..<start + blockSize]))
            start += blockSize
        }
    }

    /// A hasher that continues from a state saved with ``words``, ``pending`` and ``length``;
    /// nil if they do not fit together.
    init?(
        words: [UInt32], pending: [UInt8], length: UInt64, implementation: DigestImplementation = .preferred
    ) {
        guard let compression = Compression(words: words), pending.count < Self.blockSize,
            length % UInt64(Self.blockSize) == UInt64(pending.count)
        else { return nil }
        self.compression = compression
        self.pending = pending
        self.length = length
        self.implementation = implementation
        self.pending.reserveCapacity(Self.blockSize)
    }

    /// The compression's state words (see ``init(words:pending:length:implementation:)``).
    var words: [UInt32] { compression.words }
    /// The bytes after the last whole block, not compressed yet.
    var pendingBytes: [UInt8] { pending }

    mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The digest of everything given so far. The hasher can go on afterwards: padding is
    /// applied to a copy.
    func finalized() -> [UInt8] {
        var copy = self
        let bitLength = length &* 8
        var padding: [UInt8] = [0x80]
        let used = (pending.count + 1) % Self.blockSize
        let lengthSize = Compression.lengthFieldSize
        let zeros = (Self.blockSize - lengthSize - used + Self.blockSize) % Self.blockSize
        // The length in bits; a field of 16 bytes (SHA-512) starts with 8 zero bytes here.
        padding.append(contentsOf: repeatElement(0, count: zeros + lengthSize - 8))
        for index in 0..<8 {
            let shift = Compression.lengthIsBigEndian ? (7 - index) * 8 : index * 8
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        let length = copy.length
        copy.update(padding)
        copy.length = length
        return copy.compression.digest
    }
}
