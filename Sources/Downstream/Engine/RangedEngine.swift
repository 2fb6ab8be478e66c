import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engine of one connection: one request at a time over the ranged transport, from where the
/// partial file ends (``RangedTransfer`` decides on the response and writes the body).
struct RangedEngine: AttemptEngine {
    var transport: any Transport

    func run(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        let setup: RangedTransfer.Setup
        let urlRequest: URLRequest
        do {
            (setup, urlRequest) = try Self.prepare(attempt, of: target)
        } catch {
            return onEnd(.notSent(error))
        }
        target.willSend(urlRequest)
        let transfer = RangedTransfer(
            setup, progress: target.progress, publish: target.publish, observeResponse: target.didReceive,
            onEnd: { outcome, response in onEnd(AttemptEnd(transferEnd: outcome, response: response)) })
        let launched = running.launch(transfer) { transfer.start(urlRequest, on: transport) }
        if !launched { onEnd(AttemptEnd(transferEnd: .cancelled)) }
    }

    /// Decides where the request starts (the partial file's real length, if its record says it
    /// can be continued), which bytes before that it asks for again to compare them (when no
    /// validator of the same URL can guard the range), and where it ends; and builds it. Reads
    /// and writes files.
    static func prepare(
        _ attempt: Attempt, of target: AttemptTarget
    ) throws(DownloadError) -> (RangedTransfer.Setup, URLRequest) {
        let url = attempt.url
        let request = target.request
        let settings = target.settings
        try target.preparePlaces()

        var record = target.recordFile.resume(startingOverFrom: url)
        var offset: Int64 = 0
        if let existing = attempt.existingFile {
            // The download has no bytes of its own: it continues the file at the destination, if
            // the server's bytes before its end are the file's.
            offset = existing.length
            record = .startingOver(url: url)
        } else if attempt.kind != .restart, record.isResumable {
            if record.segments != nil {
                offset = try abandonSegments(of: record, target: target)
                record.segments = nil
            } else {
                offset = POSIXFile.length(atPath: target.partialPath) ?? 0
            }
            if let expected = record.expectedLength, offset > expected { offset = 0 }
        }
        if offset == 0 {
            // Whatever the partial file holds is not to be continued until a response replaces it.
            record = .startingOver(url: url)
        }
        // (A file continued from the destination is hashed at delivery: nothing of it was read.)
        record.digest =
            attempt.existingFile == nil ? try target.continuedDigest(of: &record, upTo: offset) : nil
        // A large file comes in bounded ranges, one request after another (see
        // `maximumBytesPerRequest`); the last range is open-ended.
        var end: Int64?
        if let length = settings.maximumBytesPerRequest {
            let candidate = offset + length
            if record.expectedLength.map({ candidate < $0 }) ?? true {
                end = candidate
            }
        }
        let (connections, minimumSize) = target.segmentation
        if request.acceptsCompressedBody, offset == 0 {
            // The whole file: a server that compresses it sends no part of it that is the file's.
            end = nil
        } else if connections > 1, offset == 0 || attempt.existingFile != nil, !attempt.rangesRefused {
            // The first segment only: its answer tells whether the rest can be split (also after
            // another program's file).
            end = min(end ?? offset + minimumSize, offset + minimumSize)
        }
        // A validator says what to ask for (`If-Range`, only on the server that gave it); the bytes
        // say what to believe: every continuation asks for the bytes before the resume point again
        // and compares them with the disk's before anything is written. Validators come from
        // modification times, which a replaced file can keep.
        let validator = record.url == url ? record.validator : Validator()
        let copy = attempt.existingCopy
        // Another program's file is compared over at least 64 KiB, whatever the setting: nothing
        // else says it is the server's.
        let overlap = attempt.existingFile == nil ? settings.overlapLength : max(settings.overlapLength, 64 << 10)
        var plan = AttemptPlan(
            offset: offset, overlap: Int64(overlap), end: end, validator: validator,
            expectedLength: record.expectedLength, onServerFileChange: request.onServerFileChange,
            existingCopy: offset == 0 ? copy?.path : nil, serverDigest: record.serverDigest,
            acceptsCompression: request.acceptsCompressedBody, maximumLength: request.maximumFileSize)
        // A server that answered `If-Range` with its whole file of the same version gets `Range`
        // alone: the overlap guards the range (and a 206 of another validator or length is refused).
        plan.omitsIfRange = settings.transfer.ifRangeIgnorers.contains(url)
        plan.continuedFile = attempt.existingFile?.path

        var urlRequest = target.baseRequest(
            to: url, adapted: attempt.adaptedHeaders, credentials: attempt.credentials)
        if plan.acceptEncoding != "identity" {
            // (`identity`, the base request's, is most requests': no second change of the request.)
            urlRequest.setValue(plan.acceptEncoding, forHTTPHeaderField: "Accept-Encoding")
        }
        urlRequest.setValue(plan.rangeHeader, forHTTPHeaderField: "Range")
        urlRequest.setValue(plan.ifRangeHeader, forHTTPHeaderField: "If-Range")
        if plan.existingCopy != nil, let copy {
            for (name, value) in copy.conditionalHeaders {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
        }
        var setup = RangedTransfer.Setup(
            url: url, plan: plan, announcesResume: attempt.kind == .first,
            partialPath: target.partialPath, namesFile: request.destination.fileURL == nil, record: record,
            recordFile: target.recordFile, settings: settings.transfer, downloadID: target.downloadID,
            answersChallenges: attempt.answersChallenges, previousChallenges: attempt.previousChallenges,
            expectedAlgorithm: request.expectedDigest?.algorithm,
            discardsRejectedFile: request.onRejectedFile == .discard, credentials: attempt.credentials,
            existingFile: attempt.existingFile)
        let policy = request.destination.conflictPolicy
        if request.destination.fileURL == nil, policy == .fail || policy == .continueExisting {
            setup.refusesTakenNameIn = request.destination.directoryPath
        }
        return (setup, urlRequest)
    }

    /// One connection continues a file that had segments: from its bytes before the first gap.
    /// The file is cut there first, then the record forgets the segments (a process killed in
    /// between finds segments longer than the file, and trusts only the bytes the file has).
    /// Returns that length.
    static func abandonSegments(of record: ResumeRecord, target: AttemptTarget) throws(DownloadError) -> Int64 {
        guard let saved = record.segments, let length = record.expectedLength else { return 0 }
        let path = target.partialPath
        let fileLength = POSIXFile.length(atPath: path) ?? 0
        let prefix =
            SegmentMap(length: length, minimumSize: 1, saved: saved, fileLength: fileLength)?.durablePrefix ?? 0
        if fileLength > prefix {
            let descriptor = try POSIXFile.openForWriting(atPath: path)
            defer { POSIXFile.close(descriptor) }
            try POSIXFile.truncate(descriptor, to: prefix, path: path)
        }
        try target.recordFile.update { stored in
            stored.resume.segments = nil
            stored.resume.durableLength = prefix
        }
        return prefix
    }
}
