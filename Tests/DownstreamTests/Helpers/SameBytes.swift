import Foundation
import Testing

/// Expects `actual` to be `expected`, byte for byte; on a mismatch, reports the lengths and the
/// first byte that differs.
///
/// Not `#expect(actual == expected)` for large bodies: on a mismatch Swift Testing computes the
/// difference of the two collections for its message, which for two bodies of a megabyte that
/// differ ran for minutes on CI, holding a thread of Swift's pool the whole time.
func expectSameBytes(_ actual: Data, _ expected: Data, sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != expected else { return }
    let firstDifference = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    let at = firstDifference ?? min(actual.count, expected.count)
    Issue.record(
        "\(actual.count) bytes, \(expected.count) expected; the first difference at byte \(at)",
        sourceLocation: sourceLocation)
}
