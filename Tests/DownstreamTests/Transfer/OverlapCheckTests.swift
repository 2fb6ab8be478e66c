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
}
