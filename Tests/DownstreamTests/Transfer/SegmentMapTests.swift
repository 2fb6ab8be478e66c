@testable import Downstream
import Testing

/// The split of one file between connections, without I/O: segments cover the file exactly, a
/// connection that is done takes half of the largest remaining segment, and what is durable is
/// what a relaunch continues from.
struct SegmentMapTests {
    static let mebibyte: Int64 = 1 << 20

    /// Segments in order, from byte 0 to the file's end, without gaps or overlaps.
    static func expectCoverage(_ map: SegmentMap, sourceLocation: SourceLocation = #_sourceLocation) {
        var next: Int64 = 0
        for segment in map.segments {
            #expect(segment.start == next, sourceLocation: sourceLocation)
            #expect(segment.end >= segment.start, sourceLocation: sourceLocation)
            #expect(segment.received <= segment.end - segment.start, sourceLocation: sourceLocation)
            #expect(segment.durable <= segment.received, sourceLocation: sourceLocation)
            next = segment.end
        }
        #expect(next == map.length, sourceLocation: sourceLocation)
    }

    @Test func aFileIsSplitInEqualSegmentsOfAtLeastTheMinimum() {
        let map = SegmentMap(length: 100 * Self.mebibyte, connections: 4, minimumSize: Self.mebibyte)
        #expect(map.segments.map(\.start) == [0, 25, 50, 75].map { $0 * Self.mebibyte })
        Self.expectCoverage(map)
        // Too small for two segments of the minimum: one.
        let small = SegmentMap(length: 3 * Self.mebibyte / 2, connections: 8, minimumSize: Self.mebibyte)
        #expect(small.segments.count == 1)
        // Five of the minimum for eight connections: five.
        #expect(SegmentMap(length: 5 * Self.mebibyte, connections: 8, minimumSize: Self.mebibyte).segments.count == 5)
    }

    @Test func bytesOnDiskAlreadyAreOneCompleteSegment() {
        let map = SegmentMap(length: 10 * Self.mebibyte, from: 2 * Self.mebibyte, connections: 2, minimumSize: 1)
        #expect(map.segments.map(\.start) == [0, 2 * Self.mebibyte, 6 * Self.mebibyte])
        #expect(map.segments[0].isComplete)
        #expect(map.durablePrefix == 2 * Self.mebibyte)
        Self.expectCoverage(map)
    }

    @Test func aConnectionThatIsDoneTakesHalfOfTheLargestRemainingSegment() {
        var map = SegmentMap(length: 40 * Self.mebibyte, connections: 2, minimumSize: Self.mebibyte)
        let first = map.assign(1)
        let second = map.assign(2)
        #expect(first?.start == 0)
        #expect(second?.start == 20 * Self.mebibyte)
        // The first connection finishes; the second has 4 MiB of its 20.
        #expect(map.receive(20 * Self.mebibyte, inSegmentAt: 0) == 20 * Self.mebibyte)
        #expect(map.receive(4 * Self.mebibyte, inSegmentAt: 20 * Self.mebibyte) == 4 * Self.mebibyte)
        let taken = map.assign(1)
        // 16 MiB remain in the second's segment: the first takes the last 8.
        #expect(taken?.start == 32 * Self.mebibyte)
        #expect(taken?.end == 40 * Self.mebibyte)
        #expect(map.segment(of: 2)?.end == 32 * Self.mebibyte)
        Self.expectCoverage(map)
        // Bytes the second connection's request still brings past its new end are not its own.
        #expect(map.receive(20 * Self.mebibyte, inSegmentAt: 20 * Self.mebibyte) == 8 * Self.mebibyte)
        #expect(map.segment(of: 2)?.isComplete == true)
    }

    @Test func noTakeoverOfLessThanTheMinimum() {
        var map = SegmentMap(length: 4 * Self.mebibyte, connections: 2, minimumSize: Self.mebibyte)
        _ = map.assign(1)
        _ = map.assign(2)
        _ = map.receive(2 * Self.mebibyte, inSegmentAt: 0)
        _ = map.receive(Self.mebibyte + 1, inSegmentAt: 2 * Self.mebibyte)
        // 1 MiB − 1 byte left: half of it is not worth a connection.
        #expect(map.assign(1) == nil)
        #expect(map.segment(of: 1) == nil, "the first connection is free")
    }

    @Test func aReleasedSegmentWaitsForAnotherConnectionFromItsReceivedBytes() {
        var map = SegmentMap(length: 10 * Self.mebibyte, connections: 2, minimumSize: Self.mebibyte)
        _ = map.assign(1)
        _ = map.assign(2)
        _ = map.receive(Self.mebibyte, inSegmentAt: 0)
        map.release(1)
        let again = map.assign(3)
        #expect(again?.start == 0)
        #expect(again?.next == Self.mebibyte)
    }

    @Test func whatIsSavedIsTheDurableBytesAndARelaunchContinuesFromThem() throws {
        var map = SegmentMap(length: 30 * Self.mebibyte, connections: 3, minimumSize: Self.mebibyte)
        for connection in 1...3 { _ = map.assign(connection) }
        _ = map.receive(10 * Self.mebibyte, inSegmentAt: 0)
        _ = map.receive(3 * Self.mebibyte, inSegmentAt: 10 * Self.mebibyte)
        map.checkpoint()
        _ = map.receive(2 * Self.mebibyte, inSegmentAt: 20 * Self.mebibyte)
        // The first segment is whole and the second has 3 MiB: the prefix stops at the gap.
        #expect(map.durablePrefix == 13 * Self.mebibyte)
        let restored = try #require(
            SegmentMap(length: map.length, minimumSize: map.minimumSize, saved: map.saved, fileLength: map.length))
        #expect(restored.segments.map(\.next) == [10, 13, 20].map { $0 * Self.mebibyte })
        #expect(restored.segments.allSatisfy { $0.connection == nil })
        map.rewindToDurable()
        #expect(map.segments.map(\.received) == restored.segments.map(\.received))
    }

    @Test func connectionsReceivingAtRandomAlwaysCoverTheFileAndFinishIt() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let length = Int64.random(in: 1...(64 * Self.mebibyte), using: &generator)
            let connections = Int.random(in: 1...8, using: &generator)
            var map = SegmentMap(
                length: length, connections: connections, minimumSize: Self.mebibyte / 4)
            var working = Set<Int>()
            for connection in 1...connections where map.assign(connection) != nil { working.insert(connection) }
            var steps = 0
            while !map.isComplete, steps < 100_000 {
                steps += 1
                guard let connection = working.randomElement(using: &generator),
                    let segment = map.segment(of: connection)
                else {
                    // Everyone idle: someone takes what is left.
                    if map.assign(1) != nil { working.insert(1) }
                    continue
                }
                _ = map.receive(
                    Int64.random(in: 1...(Self.mebibyte / 2), using: &generator), inSegmentAt: segment.start)
                if Int.random(in: 0..<10, using: &generator) == 0 { map.checkpoint() }
                if map.segment(of: connection)?.isComplete == true, map.assign(connection) == nil {
                    working.remove(connection)
                }
                Self.expectCoverage(map)
            }
            #expect(map.isComplete, "\(length) bytes, \(connections) connections")
            #expect(map.received == length)
        }
    }

    @Test func aRestoredMapTrustsOnlyTheBytesTheFileHasAndRefusesSegmentsWithGaps() throws {
        let saved = [
            SavedSegment(start: 0, end: 100, durable: 100),
            SavedSegment(start: 100, end: 200, durable: 80),
            SavedSegment(start: 200, end: 300, durable: 50),
        ]
        // A file cut at 150 (one connection took over, then the process died) keeps 50 bytes of
        // the second segment and none of the third.
        let cut = try #require(SegmentMap(length: 300, minimumSize: 10, saved: saved, fileLength: 150))
        #expect(cut.segments.map(\.received) == [100, 50, 0])
        #expect(cut.durablePrefix == 150)
        let whole = try #require(SegmentMap(length: 300, minimumSize: 10, saved: saved, fileLength: 300))
        #expect(whole.segments.map(\.next) == [100, 180, 250])
        #expect(whole.durable == 230)
        // Segments that leave a gap, overlap or do not reach the end are no map.
        #expect(SegmentMap(length: 300, minimumSize: 10, saved: [saved[0], saved[2]], fileLength: 300) == nil)
        #expect(SegmentMap(length: 400, minimumSize: 10, saved: saved, fileLength: 300) == nil)
        #expect(
            SegmentMap(
                length: 300, minimumSize: 10,
                saved: [saved[0], SavedSegment(start: 50, end: 300, durable: 0)], fileLength: 300) == nil)
    }

    @Test func durableBytesOnlyGrowAndNeverPassTheReceivedOnes() {
        var map = SegmentMap(length: 1000, connections: 2, minimumSize: 100)
        _ = map.assign(1)
        _ = map.receive(300, inSegmentAt: 0)
        map.markDurable(upTo: 400, inSegmentAt: 0)
        #expect(map.segments[0].durable == 300)
        map.markDurable(upTo: 100, inSegmentAt: 0)
        #expect(map.segments[0].durable == 300)
        _ = map.receive(100, inSegmentAt: 0)
        // A write that failed: the bytes past the durable ones are asked for again.
        map.rewind(segmentAt: 0)
        #expect(map.segments[0].next == 300)
    }
}
