@testable import Downstream
import Foundation
import Testing

/// The verdict on the file a system task of a handoff finished with: appended only when it is the
/// rest of the file the partial file holds.
@Suite struct HandoffVerdictTests {
    /// 400,000 bytes on disk, the 65,536 before them asked for again, of a 1,000,000-byte file.
    static let handoff = SystemHandoff(
        offset: 400_000, overlap: 65_536, validator: Validator(etag: "\"v1\""), expectedLength: 1_000_000)
    static let rest: Int64 = 1_000_000 - 334_464

    func verdict(
        _ status: Int, _ contentRange: String? = nil, etag: String = "\"v1\"", partial: Int64 = 400_000,
        file: Int64 = rest, onServerFileChange: DownloadRequest.ServerFileChangePolicy = .restart
    ) -> HandoffVerdict {
        let head = ResponseHead(status: status, contentRange: contentRange, validator: Validator(etag: etag))
        return HandoffVerdict.decide(
            head, for: Self.handoff, onServerFileChange: onServerFileChange, partialLength: partial, fileLength: file)
    }

    func isDiscarded(_ verdict: HandoffVerdict, ending end: TransferEnd) -> Bool {
        if case .discard(end, _) = verdict { return true }
        return false
    }

    @Test func aRangeFromTheByteAskedForIsAppendedAfterItsOverlap() {
        #expect(verdict(206, "bytes 334464-999999/1000000") == .append(overlap: 65_536, length: 1_000_000))
    }

    @Test func aWholeFileIsNotAppended() {
        let whole = verdict(200, file: 1_000_000)
        #expect(isDiscarded(whole, ending: .incomplete(progressed: false)))
    }

    @Test func aRangeFromAnotherByteIsNotAppended() {
        #expect(isDiscarded(verdict(206, "bytes 400000-999999/1000000"), ending: .incomplete(progressed: false)))
    }

    @Test func anotherVersionIsNotAppendedAndFailsWhenTheRequestSaysSo() {
        let changed = "bytes 334464-999999/1000000"
        #expect(isDiscarded(verdict(206, changed, etag: "\"v2\""), ending: .incomplete(progressed: false)))
        let total = verdict(206, "bytes 334464-999999/2000000", file: Self.rest, onServerFileChange: .fail)
        guard case .discard(.failed(let error), _) = total else {
            Issue.record("a changed length was \(total)")
            return
        }
        #expect(error.kind == .serverFileChanged)
    }

    @Test func aFileShorterThanItsContentRangeOrAChangedPartialIsNotAppended() {
        let range = "bytes 334464-999999/1000000"
        #expect(isDiscarded(verdict(206, range, file: Self.rest - 1), ending: .incomplete(progressed: false)))
        #expect(isDiscarded(verdict(206, range, partial: 399_000), ending: .incomplete(progressed: false)))
    }

    @Test func anErrorStatusFails() {
        #expect(isDiscarded(verdict(404, file: 20), ending: .failed(.httpStatus(404))))
    }
}
