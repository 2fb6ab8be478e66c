internal import CCurl
import Foundation

/// Decodes a compressed body (`Content-Encoding: gzip` or `deflate`) for the libcurl transport, a
/// bounded piece at a time, as URLSession decodes one.
///
/// libcurl's own decoder writes all that a network read decodes to before it returns, and keeps in
/// memory what a paused transfer cannot take: 1 GiB of zeros gzipped to 1 MB made 250 MB and
/// "Out of memory". Here each piece (at most ``pieceSize`` bytes) is handed on before the next is
/// decoded; when the receiver answers ``BodyReception/later``, the piece and the place in the
/// compressed bytes are kept, libcurl pauses, and the same compressed bytes come again on resume.
/// What a transfer holds back is its compressed bytes and one piece.
///
/// Used on the driver's thread only, one call at a time.
final class CurlBodyDecoder {
    /// The codings it decodes.
    enum Coding: Equatable {
        /// gzip (also `x-gzip`): one or more gzip members, one after the other, as `gunzip` reads.
        case gzip
        /// deflate: a zlib stream, as RFC 9110 says, or raw deflate, which some servers send.
        case deflate
    }

    /// The most decoded bytes handed on at once.
    static let pieceSize = 64 << 10

    let coding: Coding
    private var inflater: OpaquePointer?
    private var isRaw = false
    private let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 16)
    /// Decoded bytes the receiver has not taken yet (it answered `later`).
    private var pending = 0..<0
    /// Compressed bytes at the start of the chunk libcurl delivers again that were decoded
    /// already.
    private var skip = 0
    /// Whether the last decoding filled the piece: zlib may hold more output without more input.
    private var mayHoldMore = false
    /// Decoded bytes so far.
    private(set) var decodedCount: Int64 = 0
    /// Whether the compressed stream ended: what follows is not decoded.
    private(set) var hasEnded = false

    /// The coding `contentEncoding` names, if the decoder decodes it; nil for none, `identity`,
    /// and codings it does not know (the receiver judges those from the head).
    static func coding(of contentEncoding: String?) -> Coding? {
        switch contentEncoding?.trimmingWhitespace.lowercased() {
        case "gzip", "x-gzip": .gzip
        case "deflate": .deflate
        default: nil
        }
    }

    init(_ coding: Coding) {
        self.coding = coding
    }

    deinit {
        ds_inflater_destroy(inflater)
        piece.deallocate()
    }

    /// Decodes `input` (the next compressed bytes, or the same again after `later`), handing each
    /// decoded piece to `deliver`. Returns `taken` when every byte of `input` was decoded and
    /// handed on, `later` when `deliver` answered so (the transfer is to pause; call again with
    /// the same bytes). `deliver` returns nil to stop: the rest is dropped.
    func decode(
        _ input: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> BodyReception?
    ) throws(TransportFailure) -> BodyReception {
        var offset = min(skip, input.count)
        skip -= offset
        while true {
            if !pending.isEmpty {
                switch deliver(UnsafeRawBufferPointer(rebasing: piece[pending])) {
                case .later?:
                    skip = offset
                    return .later
                case nil:
                    pending = 0..<0
                    hasEnded = true
                    return .taken
                case .taken?:
                    pending = 0..<0
                }
            }
            guard !hasEnded, offset < input.count || mayHoldMore else { return .taken }
            offset += try step(UnsafeRawBufferPointer(rebasing: input[offset...]))
        }
    }

    /// Decodes from the start of `input` into the piece; returns how many bytes of `input` were
    /// read.
    private func step(_ input: UnsafeRawBufferPointer) throws(TransportFailure) -> Int {
        let inflater: OpaquePointer
        if let existing = self.inflater { inflater = existing } else { inflater = try makeInflater(raw: false) }
        var consumed = 0
        var produced = 0
        let status = ds_inflater_run(
            inflater, input.baseAddress, input.count, &consumed, piece.baseAddress, piece.count, &produced)
        pending = 0..<produced
        mayHoldMore = produced == piece.count
        let startedWith = decodedCount
        decodedCount += Int64(produced)
        switch Int(status) {
        case Int(DS_INFLATE_PROGRESS):
            guard consumed > 0 || produced > 0 || input.isEmpty else {
                throw failure("the decoder made no progress")
            }
            return consumed
        case Int(DS_INFLATE_END):
            mayHoldMore = false
            let rest = UnsafeRawBufferPointer(rebasing: input[consumed...])
            if coding == .gzip, rest.starts(with: [0x1F, 0x8B]) {
                // The next member of the file.
                _ = ds_inflater_reset(inflater)
            } else {
                // What follows the stream is not the file's (gunzip ignores it too).
                hasEnded = true
            }
            return consumed
        case Int(DS_INFLATE_DATA_ERROR) where coding == .deflate && !isRaw && startedWith == 0 && produced == 0:
            // Not a zlib stream: raw deflate, as some servers send "deflate".
            ds_inflater_destroy(inflater)
            self.inflater = nil
            _ = try makeInflater(raw: true)
            return 0
        case Int(DS_INFLATE_DATA_ERROR):
            let message = String(cString: ds_inflater_message(inflater))
            throw failure("the \(coding) body is damaged" + (message.isEmpty ? "" : " (\(message))"))
        default:
            throw failure("zlib failed (\(String(cString: ds_inflater_message(inflater))))")
        }
    }

    /// How the body ended, once its last compressed byte came: a failure when its compressed
    /// stream had not ended (an empty body, which has no stream at all, is an empty file).
    func finish() -> TransportFailure? {
        guard !hasEnded, inflater != nil else { return nil }
        return failure("the \(coding) body ends before its compressed stream does")
    }

    /// Why zlib cannot be loaded, or nil when it is.
    static let zlibUnavailability: String? = {
        var error = [CChar](repeating: 0, count: 256)
        let loaded = error.withUnsafeMutableBufferPointer { ds_zlib_load($0.baseAddress, $0.count) }
        return loaded == 1
            ? nil : String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    private func makeInflater(raw: Bool) throws(TransportFailure) -> OpaquePointer {
        guard let made = ds_inflater_create(raw ? 1 : 0) else {
            throw TransportFailure(
                code: .cannotDecodeContentData,
                reason: "cannot decode the \(coding) body: \(Self.zlibUnavailability ?? "no memory for zlib")")
        }
        inflater = made
        isRaw = raw
        return made
    }

    private func failure(_ reason: String) -> TransportFailure {
        TransportFailure(code: .cannotDecodeContentData, reason: reason)
    }
}
