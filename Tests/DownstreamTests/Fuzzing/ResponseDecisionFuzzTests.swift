import Testing

@testable import Downstream

/// Whatever a server answers to a request, the decision never writes its body anywhere but where
/// the request asked, never keeps bytes of a file that changed when the request says to fail, and
/// ends only as the status allows.
@Suite(Fuzzer.hangLimit)
struct ResponseDecisionFuzzTests {
    static let validators = [
        Validator(), Validator(etag: "\"v1\""), Validator(etag: "W/\"v1\""),
        Validator(etag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"),
        Validator(lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"),
    ]

    /// A plan as an engine makes them: often one that the response's range answers, often
    /// one with an overlap, a bounded range, a stored length, validator and digest of the file.
    static func plan(for head: ResponseHead, _ fuzz: inout Fuzzer) -> AttemptPlan {
        let lengths: [Int64?] = [nil, 0, 1, 100, 1000, 47022, head.contentRange?.total, head.contentLength, .max]
        let expected = fuzz.pick(lengths)
        let overlap = fuzz.oneIn(2) ? 0 : Int64(fuzz.below(1 << 16))
        var offset: Int64
        if let start = head.contentRange?.range?.lowerBound, fuzz.oneIn(2) {
            // The first byte asked for is where the response starts.
            let (sum, overflow) = start.addingReportingOverflow(overlap)
            offset = overflow ? start : sum
        } else {
            offset = fuzz.pick([0, 0, 1, 100, 999, 1000, expected ?? 0, .max - 1])
        }
        offset = max(0, offset)
        var end: Int64?
        if fuzz.oneIn(3) {
            let (sum, overflow) = offset.addingReportingOverflow(1 + Int64(fuzz.below(1 << 20)))
            end = overflow ? .max : sum
        }
        var serverDigest: ServerDigest?
        if let offered = head.serverDigests.first, fuzz.oneIn(2) {
            serverDigest = offered
            if fuzz.oneIn(2) { serverDigest?.hex = String(offered.hex.reversed()) }
        }
        return AttemptPlan(
            offset: offset, overlap: overlap, end: end,
            validator: fuzz.oneIn(2) ? head.validator : fuzz.pick(Self.validators), expectedLength: expected,
            onServerFileChange: fuzz.oneIn(2) ? .restart : .fail, existingCopy: fuzz.oneIn(8) ? "/copy" : nil,
            serverDigest: serverDigest, acceptsCompression: fuzz.oneIn(2),
            maximumLength: fuzz.oneIn(4) ? fuzz.pick([0, 1, 99, 100, 999, 1000, .max]) : nil)
    }

    @Test func aBodyIsWrittenOnlyWhereTheRequestAskedAndOnlyFromTheFileItAskedFor() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xDEC1DE, rounds: 100_000) { fuzz in
            let head = ResponseHead(ResponseHeadFuzzTests.response(&fuzz, oneIn: 8, rangeOneIn: 2))
            let plan = Self.plan(for: head, &fuzz)
            let decision = ResponseDecision.decide(head, for: plan)
            Self.check(decision, head, plan, &fuzz)
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    /// Whether the response's file is not the one the partial holds, by the plan's validator,
    /// length and digest (the response's first of the stored digest's algorithm: the one a
    /// record would keep, of a response that gives two).
    static func changed(_ head: ResponseHead, total: Int64?, _ plan: AttemptPlan) -> Bool {
        if plan.validator.differs(from: head.validator) { return true }
        if let total, let expected = plan.expectedLength, total != expected { return true }
        if let stored = plan.serverDigest,
            let offered = head.serverDigests.first(where: { $0.algorithm == stored.algorithm }),
            offered.hex != stored.hex
        {
            return true
        }
        return false
    }

    static func check(_ decision: ResponseDecision, _ head: ResponseHead, _ plan: AttemptPlan, _ fuzz: inout Fuzzer) {
        func what() -> String { "\(head) for \(plan) decided \(decision)" }
        switch decision {
        case .write(let body) where !body.discardsPartial:
            // A range of the file, appended where the request asked for it.
            fuzz.expect(head.status == 206 && !head.isEncoded, "a range written from \(head.status): \(what())")
            fuzz.expect(body.start == plan.firstByte, "written from another byte than asked for: \(what())")
            fuzz.expect(
                body.verifiedPrefix == plan.overlap && body.keptLength == plan.offset,
                "the overlap not compared: \(what())")
            fuzz.expect(body.end.map { $0 > body.start && $0 >= plan.offset } == true, "an empty range: \(what())")
            if let end = body.end, let total = head.contentRange?.total {
                fuzz.expect(end <= total && body.totalLength == total, "a range past the total: \(what())")
            }
            if plan.isRanged {
                let total = head.contentRange?.total
                fuzz.expect(!changed(head, total: total, plan), "a range of a changed file appended: \(what())")
            }
        case .write(let body):
            // The whole file, from its first byte: compressed only when the request accepts it,
            // never announced larger than the request allows.
            fuzz.expect(
                !head.isEncoded || (plan.acceptsCompression && head.codingRefusal(acceptsCompression: true) == nil),
                "a compressed body written: \(what())")
            if let length = body.totalLength, let limit = plan.maximumLength {
                fuzz.expect(length <= limit, "a file larger than the limit: \(what())")
            }
            fuzz.expect(
                (200...299).contains(head.status) && head.status != 206, "a whole file from \(head.status): \(what())")
            fuzz.expect(body.start == 0 && body.verifiedPrefix == 0 && body.keptLength == 0, "not from 0: \(what())")
            let length = head.isEncoded ? nil : head.contentLength
            fuzz.expect(body.end == length && body.totalLength == length, "not the file's length: \(what())")
            if let length { fuzz.expect(length >= 0, "a negative length: \(what())") }
            fuzz.expect(body.isResumable == (head.status == 200 && !head.isEncoded), "resumable or not: \(what())")
            if plan.isRanged, plan.onServerFileChange == .fail {
                fuzz.expect(!changed(head, total: length, plan), "a changed file written, not failed: \(what())")
            }
        case .alreadyComplete(let length):
            fuzz.expect(head.status == 416 && plan.isRanged, "complete on \(head.status): \(what())")
            fuzz.expect(
                length == plan.offset && plan.overlap == 0
                    && (head.contentRange?.total ?? plan.expectedLength) == length,
                "complete at another length: \(what())")
        case .restart:
            fuzz.expect(
                [206, 416].contains(head.status) && plan.isRanged, "restarted on \(head.status): \(what())")
        case .existingCopyIsCurrent(let path):
            fuzz.expect(head.status == 304 && path == plan.existingCopy, "the copy is current: \(what())")
        case .fail(let error):
            if !(200...299).contains(head.status), head.status != 416 {
                fuzz.expect(
                    error.kind == .httpStatus && error.statusCode == head.status
                        && error.retryAfter == head.retryAfter,
                    "not the status: \(what())")
            }
            if (200...299).contains(head.status), head.isEncoded {
                // A compressed body: refused unless the request accepts it and Downstream decodes it.
                fuzz.expect(
                    error.kind == .unexpectedResponse || error.kind == .serverFileChanged
                        || error.kind == .fileTooLarge, "a compressed body refused so: \(what())")
            } else if (200...299).contains(head.status), head.status != 206 {
                fuzz.expect(
                    (plan.isRanged && plan.onServerFileChange == .fail) || error.kind == .fileTooLarge,
                    "a whole file refused: \(what())")
            }
        }
        fuzz.expect(ResponseDecision.decide(head, for: plan) == decision, "decided otherwise again: \(what())")
    }
}
