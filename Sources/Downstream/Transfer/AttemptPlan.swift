import Foundation

/// What one attempt asked the server for.
struct AttemptPlan: Equatable, Sendable {
    /// Where the request continues the partial file: its length (0 for the whole file).
    var offset: Int64
    /// Bytes before ``offset`` asked for again, to be compared with the bytes on disk before any
    /// byte is written (when no validator can guard the range, or the URL changed).
    var overlap: Int64 = 0
    /// The file offset just past the last byte asked for, when the request asked for a bounded
    /// range (`bytes=firstByte-(end-1)`); nil asks for everything from ``firstByte``.
    var end: Int64?
    /// The stored validator of the file the partial holds (empty when it came from another URL).
    var validator: Validator
    /// The stored full length of the file, if known.
    var expectedLength: Int64?
    var onServerFileChange: DownloadRequest.ServerFileChangePolicy
    /// The path of an existing copy of the file, when the request is conditional (it asks for the
    /// file only if it changed since that copy): `304 Not Modified` means the copy is current.
    var existingCopy: String?
    /// The server's digest of the file the partial holds, when server digests are checked: a
    /// response that gives another value of its algorithm is of another file (from any URL: a
    /// digest is of the content, not of a server).
    var serverDigest: ServerDigest?
    /// Whether the request takes a compressed body, decoded (see
    /// ``DownloadRequest/acceptsCompressedBody``).
    var acceptsCompression = false
    /// The most bytes the file may have (``DownloadRequest/maximumFileSize``).
    var maximumLength: Int64?
    /// The path of a file at the destination whose bytes the request continues (``offset`` is its
    /// length, see ``Destination/ConflictPolicy/continueExisting``): they are not the download's
    /// until the overlap matched, so an answer that does not continue them fails the request
    /// instead of starting over.
    var continuedFile: String?
    /// Whether the request leaves `If-Range` out though the validator could guard it: the server
    /// answered one with its whole file of the same version before (see ``IfRangeIgnorers``).
    var omitsIfRange = false

    /// The codings a request that accepts compressed bodies takes, as its `Accept-Encoding` says
    /// them, and as servers may name them.
    static let acceptedEncodings = "gzip, deflate"
    static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate"]

    init(
        offset: Int64, overlap: Int64 = 0, end: Int64?, validator: Validator, expectedLength: Int64?,
        onServerFileChange: DownloadRequest.ServerFileChangePolicy, existingCopy: String? = nil,
        serverDigest: ServerDigest? = nil, acceptsCompression: Bool = false, maximumLength: Int64? = nil
    ) {
        self.offset = offset
        self.overlap = min(max(overlap, 0), offset)
        self.end = end
        self.validator = validator
        self.expectedLength = expectedLength
        self.onServerFileChange = onServerFileChange
        self.existingCopy = existingCopy
        self.serverDigest = serverDigest
        self.acceptsCompression = acceptsCompression
        self.maximumLength = maximumLength
    }

    /// The `Accept-Encoding` the request sends: compressed codings only for a request for the
    /// whole file that accepts them (a continuation must be the file's own bytes, also when it asks
    /// for every byte on disk again).
    var acceptEncoding: String {
        acceptsCompression && offset == 0 ? Self.acceptedEncodings : "identity"
    }

    /// Why a file of `length` bytes is refused, if it is larger than the request allows.
    func lengthRefusal(_ length: Int64?) -> DownloadError? {
        guard let length, let maximumLength, length > maximumLength else { return nil }
        return .fileTooLarge(
            "the server's file has \(length) bytes, the request allows \(maximumLength) (maximumFileSize)", path: nil)
    }

    /// The first byte asked for.
    var firstByte: Int64 { offset - overlap }

    /// Whether the request carries a `Range` header (also `bytes=0-` for an overlap from the first
    /// byte: a `206` says the body starts there).
    var isRanged: Bool { offset > 0 || end != nil }

    /// The value of the `If-Range` header, if any: the validator's, on a request that continues
    /// bytes on disk, unless the server is known to answer it with its whole file.
    var ifRangeHeader: String? {
        offset > 0 && !omitsIfRange ? validator.ifRangeValue : nil
    }

    /// The value of the `Range` header, if any.
    var rangeHeader: String? {
        guard isRanged else { return nil }
        return "bytes=\(firstByte)-" + (end.map { String($0 - 1) } ?? "")
    }
}
