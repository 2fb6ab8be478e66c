import Testing

@testable import Downstream

@Suite struct ContentRangeTests {
    @Test func parsesARangeWithATotal() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(range: 100...199, total: 1000))
    }

    @Test func parsesAnUnknownTotal() {
        #expect(ContentRange("bytes 0-9/*") == ContentRange(range: 0...9, total: nil))
    }

    @Test func parsesTheUnsatisfiedForm() {
        #expect(ContentRange("bytes */4096") == ContentRange(range: nil, total: 4096))
    }

    @Test func isCaseInsensitiveAboutTheUnitAndTrimsSpaces() {
        #expect(ContentRange("  Bytes 5-5/6 ") == ContentRange(range: 5...5, total: 6))
    }

    /// The last byte of `Int64.max` has no offset past it: a body there would end nowhere
    /// (deciding on a `206` with `bytes 0-9223372036854775807/*` overflowed its end).
    @Test func rejectsARangeThatEndsWhereNoFileCanGo() {
        #expect(ContentRange("bytes 0-9223372036854775807/*") == nil)
        #expect(ContentRange("bytes 9223372036854775807-9223372036854775807/*") == nil)
        let last = ContentRange("bytes 0-9223372036854775806/*")
        #expect(last == ContentRange(range: 0...(Int64.max - 1), total: nil))
    }

    @Test(arguments: [
        "", "bytes", "bytes 10-5/100", "bytes 0-99/50", "items 0-1/2", "bytes */*", "bytes 1-/9", "bytes -1-2/9",
        "bytes 0-1", "bytes a-b/c",
    ])
    func rejectsMalformedValues(_ value: String) {
        #expect(ContentRange(value) == nil)
    }
}
