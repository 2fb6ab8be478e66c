import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The parts of an HTTP response head that decide what happens to the body.
struct ResponseHead: Equatable, Sendable {
    var status: Int
    var contentRange: ContentRange?
    var hasContentRange: Bool
    var contentLength: Int64?
    var validator: Validator
    var contentEncoding: String?
    var contentDisposition: String?
    var url: URL?
    /// The server's `Retry-After`, as a delay from now.
    var retryAfter: Duration?
    /// The digests of the whole file the response gives, strongest first (see
    /// ``ServerDigest/offered(status:fields:isWholeFile:)``).
    var serverDigests: [ServerDigest] = []

    init(
        status: Int, contentRange: String? = nil, contentLength: Int64? = nil, validator: Validator = Validator(),
        contentEncoding: String? = nil, contentDisposition: String? = nil, url: URL? = nil
    ) {
        self.status = status
        self.hasContentRange = contentRange != nil
        self.contentRange = contentRange.flatMap(ContentRange.init)
        self.contentLength = contentLength
        self.validator = validator
        self.contentEncoding = contentEncoding
        self.contentDisposition = contentDisposition
        self.url = url
    }

    /// The parts of `response` the decision reads.
    init(_ response: ServerResponse) {
        // Header names are case-insensitive, and re-cased on Linux: one pass lowercases them.
        var fields: [String: String] = [:]
        for (name, value) in response.headers {
            fields[name.lowercased()] = value
        }
        self.init(
            status: response.statusCode,
            contentRange: fields["content-range"],
            // A length is never negative: `-1` says nothing (RFC 9110 allows digits only).
            contentLength: fields["content-length"].flatMap { Int64($0.trimmingWhitespace) }.flatMap {
                $0 >= 0 ? $0 : nil
            },
            validator: Validator(etag: fields["etag"], lastModified: fields["last-modified"]),
            contentEncoding: fields["content-encoding"],
            contentDisposition: fields["content-disposition"],
            url: response.url)
        retryAfter = fields["retry-after"].flatMap { Self.parseRetryAfter($0, now: Date()) }
        serverDigests = ServerDigest.offered(
            status: response.statusCode, fields: fields, isWholeFile: contentRange?.isWholeFile == true)
    }

    /// The `Location` of a redirect `response` that is not a URL (its first 200 characters), if
    /// it has one: the transport could not follow it, and the answer is no file.
    static func unreadableLocation(of response: ServerResponse) -> String? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.value(forHTTPHeaderField: "Location"),
            URL(string: location, relativeTo: response.url) == nil
        else { return nil }
        return String(location.prefix(200))
    }

    /// `Retry-After` is delay-seconds or an HTTP-date (RFC 9110, section 10.2.3).
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = String(value.trimmingWhitespace)
        if let seconds = Int(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now).rounded(.up)))
    }

    /// Whether the body is transformed (compressed): its bytes are not the file's bytes at the
    /// server's offsets, so it cannot be resumed with a range.
    var isEncoded: Bool {
        guard let contentEncoding else { return false }
        let coding = contentEncoding.trimmingWhitespace.lowercased()
        return !(coding.isEmpty || coding == "identity")
    }

    /// Why the body's coding cannot be taken by a request that accepts compressed bodies or not
    /// (`acceptsCompression`), if it cannot: every transport decodes gzip and deflate (URLSession
    /// by itself, libcurl's through `CurlBodyDecoder`), and only those.
    func codingRefusal(acceptsCompression: Bool) -> String? {
        guard isEncoded, let contentEncoding else { return nil }
        let coding = contentEncoding.trimmingWhitespace.lowercased()
        guard acceptsCompression else {
            return "the server sent the body compressed (Content-Encoding: \(contentEncoding)), which the request "
                + "did not accept (DownloadRequest.acceptsCompressedBody)"
        }
        guard AttemptPlan.decodedCodings.contains(coding) else {
            return "the server sent the body as Content-Encoding \(contentEncoding); Downstream decodes only "
                + AttemptPlan.acceptedEncodings
        }
        return nil
    }
}

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

    /// The `Accept-Encoding` the request sends: compressed codings only for a request from the
    /// first byte that accepts them (a continuation must be the file's own bytes).
    var acceptEncoding: String {
        acceptsCompression && firstByte == 0 ? Self.acceptedEncodings : "identity"
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

    /// The value of the `Range` header, if any.
    var rangeHeader: String? {
        guard isRanged else { return nil }
        return "bytes=\(firstByte)-" + (end.map { String($0 - 1) } ?? "")
    }
}

/// What to do with a response, decided from its head before any body byte is written.
enum ResponseDecision: Equatable, Sendable {
    /// Write the body into the partial file.
    case write(BodyPlan)
    /// Nothing to write: the partial file already holds the whole file.
    case alreadyComplete(length: Int64)
    /// Ignore this body and send a new request without `Range`.
    case restart(reason: String)
    /// Ignore this body and fail.
    case fail(DownloadError)
    /// The existing copy the conditional request named is the server's file: nothing to write.
    case existingCopyIsCurrent(path: String)

    struct BodyPlan: Equatable, Sendable {
        /// The file offset of the body's first byte.
        var start: Int64
        /// The file offset just past the body's last byte, when the server says where it ends.
        var end: Int64?
        /// The whole file's length, when known.
        var totalLength: Int64?
        /// The partial's bytes are discarded: the body is the whole file from its first byte.
        var discardsPartial: Bool
        /// Whether a later attempt may resume this body with a range request.
        var isResumable: Bool
        /// Bytes at the body's start that are not written but compared with the partial file's
        /// bytes at the same offsets: the overlap the request asked for.
        var verifiedPrefix: Int64 = 0

        /// The partial file's bytes that stay: those before the body, and those the body
        /// repeats.
        var keptLength: Int64 { discardsPartial ? 0 : start + verifiedPrefix }
    }

    /// Decides what to do with `head`, the answer to the request described by `plan`.
    ///
    /// - 206 whose `Content-Range` starts at the first byte asked for: append (after comparing the
    ///   overlap, if one was asked for).
    /// - 200 (the server ignored `Range`, or `If-Range` found a changed file): write from 0.
    /// - 206 from another offset, or with a changed total, validator or digest of the whole file
    ///   (``AttemptPlan/serverDigest``): never write it at a wrong offset; restart from 0 (or
    ///   fail, if the request says so on a changed file).
    /// - 416: complete when the partial already holds the whole length, else restart.
    /// - other statuses: fail with the status.
    static func decide(_ head: ResponseHead, for plan: AttemptPlan) -> ResponseDecision {
        let isRanged = plan.isRanged
        if head.status == 304, let path = plan.existingCopy {
            return .existingCopyIsCurrent(path: path)
        }
        if (200...299).contains(head.status), head.isEncoded {
            if let refusal = head.codingRefusal(acceptsCompression: plan.acceptsCompression) {
                return .fail(.unexpectedResponse(refusal))
            }
            if head.status == 206 {
                // Accepted, but a range of a compressed body is not the file's bytes at its offsets
                // (a request that accepts compressed bodies asks for no range from the first byte).
                let reason = "206 with Content-Encoding \(head.contentEncoding ?? ""): a range of a compressed body"
                return plan.offset > 0 ? .restart(reason: reason) : .fail(.unexpectedResponse(reason))
            }
        }
        switch head.status {
        case 206:
            return decidePartialContent(head, for: plan, isRanged: isRanged)
        case 200...299:
            let length = head.isEncoded ? nil : head.contentLength
            if let refusal = plan.lengthRefusal(length) {
                return .fail(refusal)
            }
            if isRanged, let change = changeDescription(head, totalLength: length, plan: plan),
                plan.onServerFileChange == .fail
            {
                return .fail(.serverFileChanged(change))
            }
            return .write(
                BodyPlan(
                    start: 0, end: length, totalLength: length, discardsPartial: true,
                    isResumable: !head.isEncoded && head.status == 200))
        case 416:
            guard isRanged else {
                return .fail(.unexpectedResponse("416 to a request without Range"))
            }
            let total = head.contentRange?.total ?? plan.expectedLength
            if let total, total == plan.offset, plan.overlap == 0 {
                // Also an empty file: no range of it can be satisfied. (With an overlap to
                // compare, the range asked for starts before the end: the answer is not this.)
                return .alreadyComplete(length: total)
            }
            guard plan.offset > 0 else {
                return .fail(.unexpectedResponse("416 to a request from the first byte"))
            }
            let reason =
                "416: the server's file has \(total.map(String.init) ?? "an unknown number of") bytes, the partial \(plan.offset)"
            if let total, let expected = plan.expectedLength, total != expected, plan.onServerFileChange == .fail {
                return .fail(.serverFileChanged(reason))
            }
            return .restart(reason: reason)
        default:
            return .fail(.httpStatus(head.status, retryAfter: head.retryAfter))
        }
    }

    private static func decidePartialContent(
        _ head: ResponseHead, for plan: AttemptPlan, isRanged: Bool
    ) -> ResponseDecision {
        // A request from the first byte has nothing to start over from.
        func reject(_ reason: String) -> ResponseDecision {
            plan.offset > 0 ? .restart(reason: reason) : .fail(.unexpectedResponse(reason))
        }
        guard let contentRange = head.contentRange, let range = contentRange.range else {
            return reject(head.hasContentRange ? "206 with an invalid Content-Range" : "206 without Content-Range")
        }
        guard range.lowerBound == plan.firstByte else {
            return reject("206 starts at byte \(range.lowerBound), the request asked for \(plan.firstByte)")
        }
        guard range.upperBound + 1 >= plan.offset else {
            return reject(
                "206 ends at byte \(range.upperBound), before the \(plan.overlap) bytes to compare end at \(plan.offset - 1)"
            )
        }
        if isRanged, let change = changeDescription(head, totalLength: contentRange.total, plan: plan) {
            return plan.onServerFileChange == .fail ? .fail(.serverFileChanged(change)) : .restart(reason: change)
        }
        if let refusal = plan.lengthRefusal(contentRange.total) {
            return .fail(refusal)
        }
        return .write(
            BodyPlan(
                start: range.lowerBound, end: range.upperBound + 1,
                totalLength: contentRange.total ?? plan.expectedLength, discardsPartial: false, isResumable: true,
                verifiedPrefix: plan.overlap))
    }

    /// Says how the response's file differs from the one the partial holds, if it does.
    private static func changeDescription(_ head: ResponseHead, totalLength: Int64?, plan: AttemptPlan) -> String? {
        if plan.validator.differs(from: head.validator) {
            return "validator changed from \(describe(plan.validator)) to \(describe(head.validator))"
        }
        if let totalLength, let expected = plan.expectedLength, totalLength != expected {
            return "length changed from \(expected) to \(totalLength) bytes"
        }
        if let stored = plan.serverDigest,
            let offered = head.serverDigests.first(where: { $0.algorithm == stored.algorithm }),
            offered.hex != stored.hex
        {
            return "the file's \(stored.digest.algorithm) digest changed from \(stored.hex) (\(stored.header)) "
                + "to \(offered.hex) (\(offered.header))"
        }
        return nil
    }

    private static func describe(_ validator: Validator) -> String {
        [validator.etag.map { "ETag \($0)" }, validator.lastModified.map { "Last-Modified \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
}
