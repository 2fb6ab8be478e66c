import Foundation

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
        /// bytes at the same offsets: the overlap the request asked for, or the whole partial
        /// (``repeatsPartial``).
        var verifiedPrefix: Int64 = 0
        /// The body is the whole file, of the version the partial holds (the same strong `ETag`
        /// and length), sent for a range (`If-Range` or `Range` ignored): its first bytes are
        /// compared with the whole partial, then the rest is appended. A server that ignored
        /// `If-Range` is remembered (``IfRangeIgnorers``).
        var repeatsPartial = false

        /// The partial file's bytes that stay: those before the body, and those the body
        /// repeats.
        var keptLength: Int64 { discardsPartial ? 0 : start + verifiedPrefix }
    }

    /// Decides what to do with `head`, the answer to the request described by `plan`.
    ///
    /// - 206 whose `Content-Range` starts at the first byte asked for: append (after comparing the
    ///   overlap, if one was asked for).
    /// - 200 (the server ignored `Range`, or `If-Range` found a changed file): write from 0;
    ///   unless the partial's file has a strong `ETag` and the 200 has the same tag and length (a
    ///   server that answers `If-Range`, or `Range`, with its whole file): compare the partial's
    ///   bytes with the body's first bytes, then append the rest (``BodyPlan/repeatsPartial``).
    /// - 206 from another offset, or with a changed total, validator or digest of the whole file
    ///   (``AttemptPlan/serverDigest``): never write it at a wrong offset; restart from 0 (or
    ///   fail, if the request says so on a changed file).
    /// - 416: complete when the partial already holds the whole length, else restart.
    /// - other statuses: fail with the status.
    ///
    /// A request that continues a file the download does not own yet (``AttemptPlan/continuedFile``)
    /// never starts over: an answer that does not continue the file fails it (see
    /// ``keepingContinuedFile(_:after:for:path:)``).
    static func decide(_ head: ResponseHead, for plan: AttemptPlan) -> ResponseDecision {
        let decision = decideForPartial(head, for: plan)
        guard let path = plan.continuedFile else { return decision }
        return keepingContinuedFile(decision, after: head, for: plan, path: path)
    }

    /// What becomes of a decision about a response to a request that continues the file at
    /// `path`, which another program left: a restart, or a body that replaces the file's bytes,
    /// fails with the file left as it is.
    private static func keepingContinuedFile(
        _ decision: ResponseDecision, after head: ResponseHead, for plan: AttemptPlan, path: String
    ) -> ResponseDecision {
        func notContinued(_ reason: String) -> ResponseDecision {
            .fail(.existingFileNotContinued(path: path, reason: reason))
        }
        let total: Int64? =
            switch head.status {
            case 206, 416: head.contentRange?.total
            case 200 where !head.isEncoded: head.contentLength
            default: nil
            }
        if let total, total < plan.offset {
            return notContinued("it has \(plan.offset) bytes, and the server's file only \(total)")
        }
        switch decision {
        case .restart(let reason):
            return notContinued("the server's answer does not continue it: \(reason)")
        case .write(let body) where body.discardsPartial && plan.offset > 0:
            return notContinued(
                "the server sends no ranges (HTTP \(head.status) with the whole file for bytes from \(plan.firstByte))")
        case .alreadyComplete:
            // (An overlap is always compared: this is a range the server could not satisfy.)
            return notContinued("the server could not send the bytes from \(plan.firstByte) (HTTP 416)")
        case .write, .fail, .existingCopyIsCurrent:
            return decision
        }
    }

    private static func decideForPartial(_ head: ResponseHead, for plan: AttemptPlan) -> ResponseDecision {
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
            let change = isRanged ? changeDescription(head, totalLength: length, plan: plan) : nil
            if let change, plan.onServerFileChange == .fail {
                return .fail(.serverFileChanged(change))
            }
            if change == nil, let length, repeatsPartial(head, length: length, plan: plan) {
                return .write(
                    BodyPlan(
                        start: 0, end: length, totalLength: length, discardsPartial: false, isResumable: true,
                        verifiedPrefix: plan.offset, repeatsPartial: true))
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

    /// Whether `head`, a 200 of `length` bytes to a request that continues the partial, is the
    /// whole file of the version the partial holds: the partial's file (from this URL) has a strong
    /// `ETag`, and the answer has the same tag and the recorded length. (A `Last-Modified` date, a
    /// weak tag or none is not enough: a date names a second, not a version, and a weak tag names
    /// no bytes; those answers start over as before.) The bytes still decide: the whole partial
    /// is compared before anything is written.
    ///
    /// A file another program left, asked for again from its first byte (it is shorter than the
    /// overlap), is compared whole with the start of any 200 that is long enough.
    private static func repeatsPartial(_ head: ResponseHead, length: Int64, plan: AttemptPlan) -> Bool {
        guard head.status == 200, !head.isEncoded, plan.offset > 0, plan.offset <= length else { return false }
        if plan.continuedFile != nil, plan.firstByte == 0 { return true }
        guard length == plan.expectedLength, let tag = plan.validator.etag, Validator.isStrong(tag),
            head.validator.etag == tag
        else { return false }
        return true
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
