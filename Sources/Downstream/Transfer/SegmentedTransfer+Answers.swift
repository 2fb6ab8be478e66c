import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SegmentedTransfer {
    /// What a segment's request does with an answer.
    enum Verdict: Equatable, Sendable {
        /// Write the body, which ends just before this file offset.
        case write(bodyEnd: Int64)
        /// Write nothing: the request ends so.
        case refuse(SegmentRequest.Outcome)
    }

    /// Decides on the answer to a request for `range` after `overlap` bytes to compare (see
    /// ``ResponseDecision``): a `206` of the same file from the first byte asked for is written; a
    /// changed file ends the attempt (to start over, or to fail, as the request says); a `200` of
    /// the same file means the server does not serve ranges here, unless it answered `If-Range`
    /// (`sentIfRange`) with the same strong `ETag` and length: then it ignores `If-Range` only,
    /// and is remembered (``IfRangeIgnorers``); another status fails the
    /// request (which retries alone when the failure is transient). The first answer from a new
    /// URL gives the record that URL's validator. An answer whose digest of the whole file
    /// differs from the record's is of another file; one that gives a digest the record does not
    /// have yet adds it.
    func verdict(
        on response: ServerResponse, for range: Range<Int64>, overlap: Int64, sentIfRange: Bool
    ) -> Verdict {
        let head = ResponseHead(response)
        state.withLock { $0.lastResponse = response }
        let record = records.withLock { records in
            if head.status == 206, records.resume.url != setup.url {
                records.resume.url = setup.url
                records.resume.validator = head.validator
            }
            return records.resume
        }
        observeResponse?(response)
        if setup.answersChallenges, [401, 407].contains(head.status) {
            return .refuse(
                .endsAttempt(
                    .challenged(
                        AuthenticationChallenge(
                            downloadID: setup.downloadID, response: response,
                            previousFailureCount: setup.previousChallenges))))
        }
        var plan = AttemptPlan(
            offset: range.lowerBound, overlap: overlap, end: range.upperBound, validator: record.validator,
            expectedLength: record.expectedLength, onServerFileChange: setup.onServerFileChange,
            serverDigest: record.serverDigest)
        plan.omitsIfRange = !sentIfRange
        switch ResponseDecision.decide(head, for: plan) {
        case .write(let body) where body.repeatsPartial && sentIfRange:
            // Its whole file, of the same version: a segment cannot take it from the first byte
            // (other connections write there). The range is asked for again without `If-Range`.
            setup.settings.ifRangeIgnorers.remember(setup.url)
            return .refuse(.ifRangeIgnored)
        case .write(let body) where body.repeatsPartial:
            // Its whole file, of the same version, to `Range` alone: it does not serve ranges.
            return .refuse(.rangesRefused)
        case .write(let body) where !body.discardsPartial:
            guard let end = body.end, body.start == plan.firstByte, end > range.lowerBound else {
                return .refuse(.failed(.unexpectedResponse("206 without the range asked for")))
            }
            if setup.settings.verifiesServerDigests, record.serverDigest == nil, let offered = head.serverDigests.first
            {
                // Saved with the next checkpoint; the file is then read at delivery.
                records.withLock { records in
                    if records.resume.serverDigest == nil { records.resume.serverDigest = offered }
                }
            }
            return .write(bodyEnd: min(end, range.upperBound))
        case .write:
            guard !record.validator.differs(from: head.validator) else {
                let reason = "the server's file changed while its segments were downloaded"
                return .refuse(
                    .endsAttempt(
                        setup.onServerFileChange == .fail
                            ? .failed(.serverFileChanged(reason)) : .restart(reason: reason)))
            }
            return .refuse(.rangesRefused)
        case .restart(let reason):
            return .refuse(.endsAttempt(.restart(reason: reason)))
        case .fail(let error):
            return .refuse(.failed(error))
        case .alreadyComplete, .existingCopyIsCurrent:
            return .refuse(.failed(.unexpectedResponse("status \(head.status) to a request for a segment")))
        }
    }

    /// Whether a segment's request may follow a redirect: the redirect rules, without asking the
    /// redirect handler again (it was asked for the first request of the file).
    func checkRedirect(_ proposed: URLRequest, from current: URL?, previousCount: Int) -> Result<
        URLRequest, DownloadError
    > {
        RedirectPolicy.check(
            proposed, from: current, original: setup.url, previousCount: previousCount,
            settings: setup.settings.redirects
        ).map { checked in
            // A Digest answer is for one request-target: the redirect's gets its own.
            var request = checked
            setup.credentials.reapply(to: &request)
            return request
        }
    }
}
