import Foundation
import Testing

@testable import Downstream

@Suite struct OverlapCheckTests {
    @Test func matchesAcrossChunksAndSaysWhereTheNewBytesStart() {
        var check = OverlapCheck(expected: Array(0..<10))
        #expect(([0, 1, 2, 3] as [UInt8]).withUnsafeBytes { check.consume($0) } == 4)
        #expect(!check.isComplete)
        // The rest of the overlap, then new bytes: 6 of the 9 belong to the overlap.
        #expect(([4, 5, 6, 7, 8, 9, 100, 101, 102] as [UInt8]).withUnsafeBytes { check.consume($0) } == 6)
        #expect(check.isComplete)
        #expect(([200] as [UInt8]).withUnsafeBytes { check.consume($0) } == 0)
    }

    @Test func aDifferentByteAnywhereIsADifference() {
        for position in 0..<10 {
            var check = OverlapCheck(expected: Array(0..<10))
            var body: [UInt8] = Array(0..<10)
            body[position] ^= 0x80
            #expect(body.prefix(5).withUnsafeBytes { check.consume($0) } == (position < 5 ? nil : 5))
            if position >= 5 {
                #expect(body.dropFirst(5).withUnsafeBytes { check.consume($0) } == nil)
            }
        }
    }

    @Test func anEmptyOverlapIsCompleteAtOnce() {
        var check = OverlapCheck(expected: [])
        #expect(check.isComplete)
        #expect(([1, 2] as [UInt8]).withUnsafeBytes { check.consume($0) } == 0)
    }

    /// A long stretch is read a window at a time: a chunk that spans windows is compared with
    /// each in turn, and a difference in a later window is found.
    @Test func aLongStretchIsComparedAWindowAtATime() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("overlap-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).writeWithoutSync(to: URL(fileURLWithPath: path))

        var intake = BodyIntake()
        intake.overlap = try OverlapCheck(path: path, range: 100..<900, windowSize: 64)
        let body = Array(bytes[100..<900]) + [1, 2, 3]
        var rest: [UInt8] = []
        for chunk in stride(from: 0, to: body.count, by: 150).map({ body[$0..<min($0 + 150, body.count)] }) {
            switch Array(chunk).withUnsafeBytes({ chunk in intake.compareOverlap(chunk).copied }) {
            case .rest(let bytes): rest += bytes
            case .other: Issue.record("the overlap differs or cannot be read")
            }
        }
        #expect(intake.overlap == nil)
        #expect(rest == [1, 2, 3])

        var changed = body
        changed[700] ^= 1
        intake.overlap = try OverlapCheck(path: path, range: 100..<900, windowSize: 64)
        let step = changed.withUnsafeBytes { intake.compareOverlap($0).copied }
        #expect(step == .other)
    }
}

extension BodyIntake.OverlapStep {
    /// The step with its rest copied out of the chunk, or `other` for a difference or a failure.
    enum Copied: Equatable {
        case rest([UInt8])
        case other
    }

    var copied: Copied {
        if case .rest(let bytes, _) = self { return .rest(Array(bytes)) }
        return .other
    }
}
