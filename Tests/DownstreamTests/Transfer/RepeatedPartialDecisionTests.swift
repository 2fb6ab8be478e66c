import Testing

@testable import Downstream

/// How the decision takes a `200` with the whole file to a request that continues a partial: read
/// on, comparing the whole partial, only when the server's file is visibly the same version (the
/// same strong `ETag` and length); else as before (start over, or fail when the request says so).
@Suite struct RepeatedPartialDecisionTests {
    static let strong = Validator(etag: "\"v1\"", lastModified: "Tue, 01 Sep 2026 10:00:00 GMT")

    func plan(
        offset: Int64 = 400, end: Int64? = nil, validator: Validator = strong, expected: Int64? = 1000,
        omitsIfRange: Bool = false, onChange: DownloadRequest.ServerFileChangePolicy = .restart
    ) -> AttemptPlan {
        var plan = AttemptPlan(
            offset: offset, overlap: 64, end: end, validator: validator, expectedLength: expected,
            onServerFileChange: onChange)
        plan.omitsIfRange = omitsIfRange
        return plan
    }

    func whole(_ validator: Validator = strong, length: Int64 = 1000) -> ResponseHead {
        ResponseHead(status: 200, contentLength: length, validator: validator)
    }

    static let readOn = ResponseDecision.write(
        .init(
            start: 0, end: 1000, totalLength: 1000, discardsPartial: false, isResumable: true, verifiedPrefix: 400,
            repeatsPartial: true))
    static let startOver = ResponseDecision.write(
        .init(start: 0, end: 1000, totalLength: 1000, discardsPartial: true, isResumable: true))

    @Test func theSameVersionIsReadOnAfterTheWholePartialMatches() {
        #expect(plan().ifRangeHeader == "\"v1\"")
        #expect(ResponseDecision.decide(whole(), for: plan()) == Self.readOn)
        #expect(ResponseDecision.decide(whole(), for: plan(end: 600)) == Self.readOn)
        // Keeps the partial whole: the decision keeps its bytes, the body repeats them.
        if case .write(let body) = ResponseDecision.decide(whole(), for: plan()) {
            #expect(body.keptLength == 400)
        }
        // A server that stops sending Last-Modified sends the same file still.
        #expect(ResponseDecision.decide(whole(Validator(etag: "\"v1\"")), for: plan()) == Self.readOn)
    }

    /// A server that ignores `Range` (not only `If-Range`) sends the same: read on too.
    @Test func theSameVersionIsReadOnWithoutIfRangeToo() {
        #expect(plan(omitsIfRange: true).ifRangeHeader == nil)
        #expect(ResponseDecision.decide(whole(), for: plan(omitsIfRange: true)) == Self.readOn)
    }

    @Test func anotherVersionOrLengthStartsOverAsBefore() {
        let changedTag = Validator(etag: "\"v2\"", lastModified: Self.strong.lastModified)
        let changedDate = Validator(etag: "\"v1\"", lastModified: "Wed, 02 Sep 2026 10:00:00 GMT")
        #expect(ResponseDecision.decide(whole(changedTag), for: plan()) == Self.startOver)
        #expect(ResponseDecision.decide(whole(changedDate), for: plan()) == Self.startOver)
        #expect(
            ResponseDecision.decide(whole(length: 1001), for: plan())
                == .write(.init(start: 0, end: 1001, totalLength: 1001, discardsPartial: true, isResumable: true)))
        #expect(
            ResponseDecision.decide(whole(changedTag), for: plan(onChange: .fail))
                == .fail(
                    .serverFileChanged(
                        "validator changed from ETag \"v1\", Last-Modified "
                            + "Tue, 01 Sep 2026 10:00:00 GMT to ETag \"v2\", Last-Modified Tue, 01 Sep 2026 10:00:00 GMT"
                    )))
    }

    /// Only a strong tag, answered with the same, names the version: with a date, a weak tag, no
    /// validator or no recorded length, the 200 starts over.
    @Test func withoutAStrongTagItStartsOver() {
        let date = Validator(lastModified: Self.strong.lastModified)
        let weak = Validator(etag: "W/\"v1\"", lastModified: Self.strong.lastModified)
        #expect(ResponseDecision.decide(whole(date), for: plan(validator: date)) == Self.startOver)
        #expect(ResponseDecision.decide(whole(weak), for: plan(validator: weak)) == Self.startOver)
        #expect(ResponseDecision.decide(whole(Validator()), for: plan(validator: Validator())) == Self.startOver)
        #expect(
            ResponseDecision.decide(whole(), for: plan(expected: nil))
                == .write(.init(start: 0, end: 1000, totalLength: 1000, discardsPartial: true, isResumable: true)))
        // From another URL (no validator of its own): the bytes alone would have to say it.
        #expect(ResponseDecision.decide(whole(), for: plan(validator: Validator())) == Self.startOver)
        // A compressed body is not the file's bytes.
        var encoded = whole()
        encoded.contentEncoding = "gzip"
        #expect(ResponseDecision.decide(encoded, for: plan()) != Self.readOn)
    }
}
