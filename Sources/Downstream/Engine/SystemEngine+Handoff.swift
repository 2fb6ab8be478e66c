import Foundation

extension SystemEngine {
    /// The ranged request of a system task that continues the bytes a ranged request wrote (a
    /// handoff): its `Range` and `If-Range`, and what the record keeps of it.
    struct Handoff: Equatable, Sendable {
        var record: SystemHandoff
        var range: String
        var ifRange: String?
    }

    /// The handoff of `attempt`, when its task is to continue the partial file: not a restart, no
    /// Apple resume data, and bytes on disk that the record says can be continued. A file that had
    /// segments continues from its bytes before the first gap (the file is cut there, as the
    /// ranged engine does). Nil for a task that asks for the whole file. Reads and writes files.
    static func handoff(
        for attempt: Attempt, of target: AttemptTarget, resumeData: Data?
    ) throws(DownloadError) -> Handoff? {
        guard attempt.kind != .restart, resumeData == nil else { return nil }
        let record = target.recordFile.resume(startingOverFrom: attempt.url)
        guard record.isResumable else { return nil }
        var offset =
            record.segments != nil
            ? try RangedEngine.abandonSegments(of: record, target: target)
            : POSIXFile.length(atPath: target.partialPath) ?? 0
        if let expected = record.expectedLength, offset > expected { offset = 0 }
        guard offset > 0 else { return nil }
        // As the ranged engine asks: `If-Range` with the validator of the same URL, and the bytes
        // before the offset again, compared with the disk's before the rest is appended.
        let validator = record.url == attempt.url ? record.validator : Validator()
        var plan = AttemptPlan(
            offset: offset, overlap: Int64(target.settings.overlapLength), end: nil, validator: validator,
            expectedLength: record.expectedLength, onServerFileChange: target.request.onServerFileChange)
        plan.omitsIfRange = target.settings.transfer.ifRangeIgnorers.contains(attempt.url)
        guard let range = plan.rangeHeader else { return nil }
        let kept = SystemHandoff(
            offset: offset, overlap: plan.overlap, validator: plan.ifRangeHeader == nil ? Validator() : validator,
            expectedLength: record.expectedLength)
        return Handoff(record: kept, range: range, ifRange: plan.ifRangeHeader)
    }
}
