/// What becomes of the file a system task finished with when it continued a partial file (a
/// handoff, ``SystemHandoff``): decided from the answer's head and the files' lengths before a
/// byte is read, the same way as for a ranged request (``ResponseDecision``).
///
/// Only a `206` whose `Content-Range` starts at the first byte asked for, of the length the
/// record knows, for a partial file still as long as it was when it was handed over, is appended
/// (after its overlap is compared, ``SystemTransfer``). Anything else leaves the partial file as it
/// is: the system's file is discarded and the download goes on from its bytes.
enum HandoffVerdict: Equatable, Sendable {
    /// Compare the file's first `overlap` bytes with the partial file's before the handoff's
    /// offset, then append the rest: the partial file is then `length` bytes long, the whole file.
    case append(overlap: Int64, length: Int64)
    /// Discard the system's file, keep the partial file; the task ends with `end`.
    case discard(TransferEnd, reason: String)

    /// The verdict on `head`, the answer to the request `handoff` describes, whose body the
    /// system wrote into a file of `fileLength` bytes, for a partial file of `partialLength` bytes.
    static func decide(
        _ head: ResponseHead, for handoff: SystemHandoff, onServerFileChange: DownloadRequest.ServerFileChangePolicy,
        partialLength: Int64, fileLength: Int64
    ) -> HandoffVerdict {
        let plan = AttemptPlan(
            offset: handoff.offset, overlap: handoff.overlap, end: nil, validator: handoff.validator,
            expectedLength: handoff.expectedLength, onServerFileChange: onServerFileChange)
        let continued: ResponseDecision.BodyPlan
        switch ResponseDecision.decide(head, for: plan) {
        case .write(let body) where !body.discardsPartial && !body.repeatsPartial && body.start == plan.firstByte:
            continued = body
        case .write:
            return .discard(
                .incomplete(progressed: false),
                reason: "\(head.status), not a 206 from byte \(plan.firstByte): not appended")
        case .fail(let error):
            return .discard(.failed(error), reason: error.description)
        case .restart(let reason):
            // The ranged engine asks again from the bytes on disk, and decides on its own answer.
            return .discard(.incomplete(progressed: false), reason: reason)
        case .alreadyComplete, .existingCopyIsCurrent:
            return .discard(.incomplete(progressed: false), reason: "\(head.status) to a handoff")
        }
        guard partialLength == handoff.offset else {
            return .discard(
                .incomplete(progressed: false),
                reason: "the partial file has \(partialLength) bytes, not the \(handoff.offset) handed over")
        }
        if let end = continued.end, end - continued.start != fileLength {
            return .discard(
                .incomplete(progressed: false),
                reason: "the system's file has \(fileLength) bytes, the Content-Range \(end - continued.start)")
        }
        guard fileLength >= handoff.overlap else {
            return .discard(
                .incomplete(progressed: false),
                reason: "the system's file has \(fileLength) bytes, fewer than the \(handoff.overlap) to compare")
        }
        let length = handoff.firstByte + fileLength
        if let total = continued.totalLength, total != length {
            return .discard(
                .incomplete(progressed: false), reason: "the file would have \(length) bytes of \(total)")
        }
        return .append(overlap: handoff.overlap, length: length)
    }
}
