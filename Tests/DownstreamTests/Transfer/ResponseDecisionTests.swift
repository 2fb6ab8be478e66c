import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import Downstream

@Suite struct ResponseDecisionTests {
    let stored = Validator(etag: "\"v1\"", lastModified: "Tue, 01 Sep 2026 10:00:00 GMT")

    func plan(
        offset: Int64, end: Int64? = nil, expected: Int64? = 1000,
        onChange: DownloadRequest.ServerFileChangePolicy = .restart, acceptsCompression: Bool = false,
        maximumLength: Int64? = nil
    ) -> AttemptPlan {
        AttemptPlan(
            offset: offset, end: end, validator: offset > 0 ? stored : Validator(), expectedLength: expected,
            onServerFileChange: onChange, acceptsCompression: acceptsCompression, maximumLength: maximumLength)
    }

    @Test func describesTheRangeItAsksFor() {
        #expect(plan(offset: 0).rangeHeader == nil)
        #expect(plan(offset: 0, end: 100).rangeHeader == "bytes=0-99")
        #expect(plan(offset: 400).rangeHeader == "bytes=400-")
        #expect(plan(offset: 400, end: 500).rangeHeader == "bytes=400-499")
    }

    @Test func acceptsTheFirstBoundedRange() {
        let head = ResponseHead(status: 206, contentRange: "bytes 0-99/1000", contentLength: 100, validator: stored)
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 0, end: 100, expected: nil))
                == .write(.init(start: 0, end: 100, totalLength: 1000, discardsPartial: false, isResumable: true)))
    }

    @Test func acceptsAShorterRangeThanAskedFor() {
        let head = ResponseHead(status: 206, contentRange: "bytes 400-449/1000", validator: stored)
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 400, end: 500))
                == .write(.init(start: 400, end: 450, totalLength: 1000, discardsPartial: false, isResumable: true)))
    }

    /// A range that ends at the last byte `Int64` numbers has no offset past it: it is invalid,
    /// where its end once overflowed.
    @Test func aRangeEndingAtTheLastNumberedByteIsInvalid() {
        let head = ResponseHead(status: 206, contentRange: "bytes 0-9223372036854775807/*")
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 0, expected: nil))
                == .fail(.unexpectedResponse("206 with an invalid Content-Range")))
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 400, expected: nil))
                == .restart(reason: "206 with an invalid Content-Range"))
    }

    @Test func anEmptyFileAnswersAFirstRangeWith416() {
        let head = ResponseHead(status: 416, contentRange: "bytes */0")
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 0, end: 100, expected: nil)) == .alreadyComplete(length: 0))
    }

    @Test func aFirstRangeOfANonEmptyFileIsSatisfiable() {
        let head = ResponseHead(status: 416, contentRange: "bytes */50")
        guard case .fail(let error) = ResponseDecision.decide(head, for: plan(offset: 0, end: 100, expected: nil))
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .unexpectedResponse)
    }

    @Test func appendsAMatchingPartialContentResponse() {
        let head = ResponseHead(status: 206, contentRange: "bytes 400-999/1000", contentLength: 600, validator: stored)
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 400))
                == .write(.init(start: 400, end: 1000, totalLength: 1000, discardsPartial: false, isResumable: true)))
    }

    /// Without the stored strong tag, a 200 is not known to be the same version: it replaces the
    /// partial. (With it, the partial is compared and kept: see `RepeatedPartialDecisionTests`.)
    @Test func restartsFromZeroWhenTheServerIgnoresTheRange() {
        let head = ResponseHead(
            status: 200, contentLength: 1000, validator: Validator(lastModified: stored.lastModified))
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 400))
                == .write(.init(start: 0, end: 1000, totalLength: 1000, discardsPartial: true, isResumable: true)))
    }

    @Test func restartsFromZeroWhenTheValidatorChanged() {
        let head = ResponseHead(status: 200, contentLength: 1200, validator: Validator(etag: "\"v2\""))
        guard case .write(let body) = ResponseDecision.decide(head, for: plan(offset: 400)) else {
            Issue.record("expected a write")
            return
        }
        #expect(body.start == 0 && body.discardsPartial && body.totalLength == 1200)
    }

    @Test func failsOnAChangedFileWhenAskedTo() {
        let head = ResponseHead(status: 200, contentLength: 1200, validator: Validator(etag: "\"v2\""))
        let decision = ResponseDecision.decide(head, for: plan(offset: 400, onChange: .fail))
        guard case .fail(let error) = decision else {
            Issue.record("expected a failure, got \(decision)")
            return
        }
        #expect(error.kind == .serverFileChanged)
    }

    @Test func neverWritesAPartialResponseAtAnotherOffset() {
        let head = ResponseHead(status: 206, contentRange: "bytes 0-999/1000", validator: stored)
        guard case .restart = ResponseDecision.decide(head, for: plan(offset: 400)) else {
            Issue.record("a 206 from byte 0 to a request for byte 400 must not be written")
            return
        }
    }

    @Test func restartsWhenThePartialContentTotalChanged() {
        let head = ResponseHead(status: 206, contentRange: "bytes 400-1499/1500", validator: stored)
        guard case .restart(let reason) = ResponseDecision.decide(head, for: plan(offset: 400)) else {
            Issue.record("expected a restart")
            return
        }
        #expect(reason.contains("1500"))
    }

    @Test func restartsWhenAPartialContentResponseHasAnotherETag() {
        let head = ResponseHead(status: 206, contentRange: "bytes 400-999/1000", validator: Validator(etag: "\"v9\""))
        guard case .restart = ResponseDecision.decide(head, for: plan(offset: 400)) else {
            Issue.record("expected a restart")
            return
        }
    }

    @Test func restartsOnAPartialContentResponseWithoutContentRange() {
        let head = ResponseHead(status: 206, contentLength: 600)
        guard case .restart = ResponseDecision.decide(head, for: plan(offset: 400)) else {
            Issue.record("expected a restart")
            return
        }
    }

    @Test func failsOnAPartialContentResponseFromAnotherByteToAFirstRequest() {
        let head = ResponseHead(status: 206, contentRange: "bytes 10-99/100")
        guard case .fail(let error) = ResponseDecision.decide(head, for: plan(offset: 0, end: 100, expected: nil))
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .unexpectedResponse)
    }

    @Test func aCompressedBodyTheRequestDidNotAcceptFailsWhateverItsStatus() {
        let refusal = DownloadError.unexpectedResponse(
            "the server sent the body compressed (Content-Encoding: gzip), which the request did not accept "
                + "(DownloadRequest.acceptsCompressedBody)")
        var range = ResponseHead(status: 206, contentRange: "bytes 400-999/1000", validator: stored)
        range.contentEncoding = "gzip"
        #expect(ResponseDecision.decide(range, for: plan(offset: 400)) == .fail(refusal))
        var whole = ResponseHead(status: 200, contentLength: 300)
        whole.contentEncoding = "gzip"
        #expect(ResponseDecision.decide(whole, for: plan(offset: 0, expected: nil)) == .fail(refusal))
        // Not a body to write: the status decides.
        var missing = ResponseHead(status: 404)
        missing.contentEncoding = "gzip"
        #expect(ResponseDecision.decide(missing, for: plan(offset: 0)) == .fail(.httpStatus(404)))
        // `identity` is the file as it is stored.
        var identity = ResponseHead(status: 200, contentLength: 300)
        identity.contentEncoding = " Identity "
        #expect(
            ResponseDecision.decide(identity, for: plan(offset: 0, expected: nil))
                == .write(.init(start: 0, end: 300, totalLength: 300, discardsPartial: true, isResumable: true)))
    }

    @Test func anAcceptedCompressedRangeStartsAgainAndAnUnknownCodingFails() {
        var head = ResponseHead(status: 206, contentRange: "bytes 400-999/1000", validator: stored)
        head.contentEncoding = "gzip"
        #expect(
            ResponseDecision.decide(head, for: plan(offset: 400, acceptsCompression: true))
                == .restart(reason: "206 with Content-Encoding gzip: a range of a compressed body"))
        var brotli = ResponseHead(status: 200, contentLength: 300)
        brotli.contentEncoding = "br"
        #expect(
            ResponseDecision.decide(brotli, for: plan(offset: 0, acceptsCompression: true))
                == .fail(
                    .unexpectedResponse(
                        "the server sent the body as Content-Encoding br; Downstream decodes only gzip, deflate")))
    }

    @Test func anAcceptedCompressedWholeResponseHasNoKnownLengthAndCannotBeResumed() {
        for coding in ["gzip", "x-gzip", "DEFLATE"] {
            var head = ResponseHead(status: 200, contentLength: 300)
            head.contentEncoding = coding
            // The limit is for the decoded file, not for the compressed body.
            #expect(
                ResponseDecision.decide(
                    head, for: plan(offset: 0, expected: nil, acceptsCompression: true, maximumLength: 10))
                    == .write(.init(start: 0, end: nil, totalLength: nil, discardsPartial: true, isResumable: false)))
        }
    }

    @Test func aRequestAcceptsCompressionOnlyFromTheFirstByte() {
        #expect(plan(offset: 0, acceptsCompression: true).acceptEncoding == "gzip, deflate")
        #expect(plan(offset: 400, acceptsCompression: true).acceptEncoding == "identity")
        #expect(plan(offset: 0).acceptEncoding == "identity")
    }

    @Test func aFileLargerThanTheLimitIsRefusedFromItsAnnouncedLength() {
        let tooLarge = DownloadError.fileTooLarge(
            "the server's file has 1000 bytes, the request allows 999 (maximumFileSize)", path: nil)
        #expect(
            ResponseDecision.decide(
                ResponseHead(status: 200, contentLength: 1000), for: plan(offset: 0, maximumLength: 999))
                == .fail(tooLarge))
        let range = ResponseHead(status: 206, contentRange: "bytes 400-999/1000", validator: stored)
        #expect(ResponseDecision.decide(range, for: plan(offset: 400, maximumLength: 999)) == .fail(tooLarge))
        #expect(
            ResponseDecision.decide(
                ResponseHead(status: 200, contentLength: 1000), for: plan(offset: 0, maximumLength: 1000))
                == .write(.init(start: 0, end: 1000, totalLength: 1000, discardsPartial: true, isResumable: true)))
    }

    @Test func rangeNotSatisfiableCompletesAWholePartial() {
        let head = ResponseHead(status: 416, contentRange: "bytes */1000")
        #expect(ResponseDecision.decide(head, for: plan(offset: 1000)) == .alreadyComplete(length: 1000))
    }

    @Test func rangeNotSatisfiableWithoutATotalUsesTheStoredLength() {
        let head = ResponseHead(status: 416)
        #expect(ResponseDecision.decide(head, for: plan(offset: 1000)) == .alreadyComplete(length: 1000))
    }

    @Test func rangeNotSatisfiableRestartsAnIncompletePartial() {
        let head = ResponseHead(status: 416, contentRange: "bytes */300")
        guard case .restart = ResponseDecision.decide(head, for: plan(offset: 400, expected: nil)) else {
            Issue.record("expected a restart")
            return
        }
    }

    @Test(arguments: [400, 403, 404, 410, 500, 503, 304])
    func failsWithTheStatus(_ status: Int) {
        let decision = ResponseDecision.decide(ResponseHead(status: status), for: plan(offset: 400))
        #expect(decision == .fail(.httpStatus(status)))
    }

    @Test func readsHeadersCaseInsensitivelyFromAnHTTPResponse() throws {
        let url = try #require(URL(string: "http://127.0.0.1/files/a.bin"))
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 206, httpVersion: "HTTP/1.1",
                headerFields: [
                    "content-range": "bytes 1-2/3", "ETAG": "\"x\"", "Content-Length": "2",
                    "content-disposition": "attachment; filename=\"b.bin\"",
                ]))
        let head = ResponseHead(ServerResponse(response))
        #expect(head.contentRange == ContentRange(range: 1...2, total: 3))
        #expect(head.validator.etag == "\"x\"")
        #expect(head.contentLength == 2)
        #expect(head.contentDisposition == "attachment; filename=\"b.bin\"")
    }

    /// A negative `Content-Length` (which curl passes on as it is) is no length: the whole file
    /// is written without one, where it was planned to end at `-1`, of `-1` bytes.
    @Test func aNegativeContentLengthIsNoLength() {
        for value in ["-1", " -1000 ", "-9223372036854775808"] {
            let head = ResponseHead(ServerResponse(url: nil, statusCode: 200, headers: ["Content-Length": value]))
            #expect(head.contentLength == nil, "\(value)")
            #expect(
                ResponseDecision.decide(head, for: plan(offset: 0))
                    == .write(.init(start: 0, end: nil, totalLength: nil, discardsPartial: true, isResumable: true)),
                "\(value)")
        }
        let zero = ResponseHead(ServerResponse(url: nil, statusCode: 200, headers: ["Content-Length": "0"]))
        #expect(zero.contentLength == 0)
    }

    // MARK: - Overlap

    func overlapPlan(offset: Int64, overlap: Int64, end: Int64? = nil) -> AttemptPlan {
        AttemptPlan(
            offset: offset, overlap: overlap, end: end, validator: Validator(), expectedLength: 1000,
            onServerFileChange: .restart)
    }

    @Test func anOverlapIsAskedForBeforeTheResumePointAndCappedByIt() {
        #expect(overlapPlan(offset: 400, overlap: 100).rangeHeader == "bytes=300-")
        #expect(overlapPlan(offset: 400, overlap: 100, end: 600).rangeHeader == "bytes=300-599")
        let capped = overlapPlan(offset: 50, overlap: 100)
        #expect(capped.overlap == 50)
        #expect(capped.rangeHeader == "bytes=0-")
        #expect(overlapPlan(offset: 0, overlap: 100).rangeHeader == nil)
    }

    @Test func aRangeFromTheOverlapIsComparedThenAppended() {
        let head = ResponseHead(status: 206, contentRange: "bytes 300-999/1000")
        let decision = ResponseDecision.decide(head, for: overlapPlan(offset: 400, overlap: 100))
        let expected = ResponseDecision.BodyPlan(
            start: 300, end: 1000, totalLength: 1000, discardsPartial: false, isResumable: true, verifiedPrefix: 100)
        #expect(decision == .write(expected))
        #expect(expected.keptLength == 400)
    }

    @Test func aCompletePartialIsComparedWithTheLastBytesOfTheFile() {
        let head = ResponseHead(status: 206, contentRange: "bytes 900-999/1000")
        guard case .write(let body) = ResponseDecision.decide(head, for: overlapPlan(offset: 1000, overlap: 100)) else {
            Issue.record("expected a write")
            return
        }
        #expect(body.keptLength == 1000 && body.end == 1000)
    }

    @Test(arguments: ["bytes 400-999/1000", "bytes 300-350/1000"])
    func aRangeThatSkipsThePartOfTheOverlapIsNotWritten(_ contentRange: String) {
        let head = ResponseHead(status: 206, contentRange: contentRange)
        guard case .restart = ResponseDecision.decide(head, for: overlapPlan(offset: 400, overlap: 100)) else {
            Issue.record("\(contentRange) must not be written to a request for bytes=300- that compares 300..<400")
            return
        }
    }

    @Test func aChangedLengthIsAChangeWithoutValidatorsToo() {
        let head = ResponseHead(status: 206, contentRange: "bytes 300-1099/1100")
        guard case .restart(let reason) = ResponseDecision.decide(head, for: overlapPlan(offset: 400, overlap: 100))
        else {
            Issue.record("expected a restart")
            return
        }
        #expect(reason.contains("1100"))
    }

    @Test func notModifiedMeansTheExistingCopyOnlyForAConditionalRequest() {
        var conditional = plan(offset: 0, end: 100, expected: nil)
        conditional.existingCopy = "/tmp/copy.bin"
        #expect(
            ResponseDecision.decide(ResponseHead(status: 304), for: conditional)
                == .existingCopyIsCurrent(path: "/tmp/copy.bin"))
        #expect(
            ResponseDecision.decide(ResponseHead(status: 304), for: plan(offset: 0, end: 100, expected: nil))
                == .fail(.httpStatus(304)))
    }

    @Test func aContinuationWithAnotherDigestOfTheWholeFileIsAnotherFile() {
        let sha = { (byte: UInt8) in
            ServerDigest(.sha256, bytes: [UInt8](repeating: byte, count: 32), header: "Repr-Digest")
        }
        var plan = plan(offset: 400)
        plan.serverDigest = sha(1)
        func head(_ digests: [ServerDigest]) -> ResponseHead {
            var head = ResponseHead(status: 206, contentRange: "bytes 400-999/1000", validator: stored)
            head.serverDigests = digests
            return head
        }
        let write = ResponseDecision.write(
            .init(start: 400, end: 1000, totalLength: 1000, discardsPartial: false, isResumable: true))
        #expect(ResponseDecision.decide(head([sha(1)]), for: plan) == write)
        #expect(ResponseDecision.decide(head([]), for: plan) == write)
        // Another algorithm says nothing about the stored one.
        #expect(
            ResponseDecision.decide(
                head([ServerDigest(.md5, bytes: [UInt8](repeating: 2, count: 16), header: "ETag")]), for: plan) == write
        )
        guard case .restart(let reason) = ResponseDecision.decide(head([sha(2)]), for: plan) else {
            Issue.record("a changed digest is a changed file")
            return
        }
        #expect(reason.contains("SHA-256 digest changed from 0101"))
        plan.onServerFileChange = .fail
        #expect(ResponseDecision.decide(head([sha(2)]), for: plan) == .fail(.serverFileChanged(reason)))
    }
}
