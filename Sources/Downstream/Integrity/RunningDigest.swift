import Foundation

/// A digest being computed over a file as it is written: any of the supported algorithms (hashes
/// and CRCs), its state saved with the download's record so that a relaunch goes on from it.
struct RunningDigest: Sendable {
    private enum Hasher: Sendable {
        case sha256(BlockHasher<SHA256Compression>)
        case sha1(BlockHasher<SHA1Compression>)
        case md5(BlockHasher<MD5Compression>)
        case sha512(BlockHasher<SHA512Compression>)
        case sha384(BlockHasher<SHA384Compression>)
        case crc32c(CRCState)
        case crc32(CRCState)
    }

    /// A CRC and how many bytes it covers.
    private struct CRCState: Sendable {
        var value: UInt32 = 0
        var length: UInt64 = 0
    }

    let algorithm: Digest.Algorithm
    private var hasher: Hasher

    /// Who computes the digest: the platform where it can, or Swift (see
    /// ``DigestImplementation``). Not saved: a restored digest goes on with the preferred one.
    let implementation: DigestImplementation

    /// A digest of nothing yet.
    init(_ algorithm: Digest.Algorithm, implementation: DigestImplementation = .preferred) {
        self.algorithm = algorithm
        self.implementation = implementation
        switch algorithm.code {
        case .sha256: hasher = .sha256(BlockHasher(implementation: implementation))
        case .sha1: hasher = .sha1(BlockHasher(implementation: implementation))
        case .md5: hasher = .md5(BlockHasher(implementation: implementation))
        case .sha512: hasher = .sha512(BlockHasher(implementation: implementation))
        case .sha384: hasher = .sha384(BlockHasher(implementation: implementation))
        case .crc32c: hasher = .crc32c(CRCState())
        case .crc32: hasher = .crc32(CRCState())
        }
    }

    /// How many bytes were hashed.
    var length: Int64 {
        switch hasher {
        case .sha256(let hasher): Int64(hasher.length)
        case .sha1(let hasher): Int64(hasher.length)
        case .md5(let hasher): Int64(hasher.length)
        case .sha512(let hasher): Int64(hasher.length)
        case .sha384(let hasher): Int64(hasher.length)
        case .crc32c(let state), .crc32(let state): Int64(state.length)
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch hasher {
        case .sha256(var hasher):
            hasher.update(bytes)
            self.hasher = .sha256(hasher)
        case .sha1(var hasher):
            hasher.update(bytes)
            self.hasher = .sha1(hasher)
        case .md5(var hasher):
            hasher.update(bytes)
            self.hasher = .md5(hasher)
        case .sha512(var hasher):
            hasher.update(bytes)
            self.hasher = .sha512(hasher)
        case .sha384(var hasher):
            hasher.update(bytes)
            self.hasher = .sha384(hasher)
        case .crc32c(var state):
            state.value = CRC32C.checksum(bytes, continuing: state.value, implementation: implementation)
            state.length += UInt64(bytes.count)
            self.hasher = .crc32c(state)
        case .crc32(var state):
            state.value = CRC32.checksum(bytes, continuing: state.value, implementation: implementation)
            state.length += UInt64(bytes.count)
            self.hasher = .crc32(state)
        }
    }

    /// The digest of the bytes so far.
    func finalized() -> [UInt8] {
        switch hasher {
        case .sha256(let hasher): hasher.finalized()
        case .sha1(let hasher): hasher.finalized()
        case .md5(let hasher): hasher.finalized()
        case .sha512(let hasher): hasher.finalized()
        case .sha384(let hasher): hasher.finalized()
        case .crc32c(let state), .crc32(let state): state.value.bigEndianBytes
        }
    }

    /// Hashes the bytes of the file at `path` from ``length`` up to `end`, in constant memory.
    mutating func update(fromFileAt path: String, upTo end: Int64) throws(DownloadError) {
        try POSIXFile.read(atPath: path, from: length, to: end) { update($0) }
    }
}

extension RunningDigest {
    /// The running digest of the first `length` bytes of the file at `path`: `saved` continued
    /// if it covers no more than that, else one computed from the first byte.
    static func resuming(
        _ saved: RunningDigest?, _ algorithm: Digest.Algorithm, fileAt path: String, length: Int64
    ) throws(DownloadError) -> RunningDigest {
        var digest = RunningDigest(algorithm)
        if let saved, saved.algorithm == algorithm, saved.length <= length {
            digest = saved
        }
        try digest.update(fromFileAt: path, upTo: length)
        return digest
    }
}

extension RunningDigest: Equatable {
    static func == (a: RunningDigest, b: RunningDigest) -> Bool {
        a.serialized == b.serialized
    }
}

extension RunningDigest: Codable {
    /// The state as one line of text: `algorithm:length:words:pending`, words and pending bytes
    /// in hexadecimal.
    var serialized: String {
        let (words, pending): ([UInt32], [UInt8]) =
            switch hasher {
            case .sha256(let hasher): (hasher.words, hasher.pendingBytes)
            case .sha1(let hasher): (hasher.words, hasher.pendingBytes)
            case .md5(let hasher): (hasher.words, hasher.pendingBytes)
            case .sha512(let hasher): (hasher.words, hasher.pendingBytes)
            case .sha384(let hasher): (hasher.words, hasher.pendingBytes)
            case .crc32c(let state), .crc32(let state): ([state.value], [])
            }
        let wordText = words.flatMap(\.bigEndianBytes).hexString
        return "\(algorithm.code.rawValue):\(length):\(wordText):\(pending.hexString)"
    }

    init?(serialized: String, implementation: DigestImplementation = .preferred) {
        let parts = serialized.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, let code = Digest.Algorithm.Code(rawValue: String(parts[0])),
            let length = UInt64(parts[1]), let wordBytes = [UInt8](hex: parts[2]),
            wordBytes.count % 4 == 0, let pending = [UInt8](hex: parts[3])
        else { return nil }
        let words = stride(from: 0, to: wordBytes.count, by: 4).map { index in
            wordBytes[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        algorithm = Digest.Algorithm(code: code)
        self.implementation = implementation
        func restored<C: BlockCompression>(_: C.Type) -> BlockHasher<C>? {
            BlockHasher(words: words, pending: pending, length: length, implementation: implementation)
        }
        switch code {
        case .sha256:
            guard let hasher = restored(SHA256Compression.self) else { return nil }
            self.hasher = .sha256(hasher)
        case .sha1:
            guard let hasher = restored(SHA1Compression.self) else { return nil }
            self.hasher = .sha1(hasher)
        case .md5:
            guard let hasher = restored(MD5Compression.self) else { return nil }
            self.hasher = .md5(hasher)
        case .sha512:
            guard let hasher = restored(SHA512Compression.self) else { return nil }
            self.hasher = .sha512(hasher)
        case .sha384:
            guard let hasher = restored(SHA384Compression.self) else { return nil }
            self.hasher = .sha384(hasher)
        case .crc32c, .crc32:
            guard words.count == 1, pending.isEmpty else { return nil }
            let state = CRCState(value: words[0], length: length)
            self.hasher = code == .crc32c ? .crc32c(state) : .crc32(state)
        }
    }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let digest = RunningDigest(serialized: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a digest state: \(text)"))
        }
        self = digest
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(serialized)
    }
}
