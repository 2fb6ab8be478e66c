/// How one file's bytes are shared between several connections, and how far each part got: the
/// state of a segmented download, without I/O.
///
/// Segments cover the file's bytes in order, without gaps or overlaps. A connection is given a
/// segment of its own; when it has finished it and none is left unassigned, it takes over the
/// second half of the largest remaining one (aria2's way), so that the last seconds are not one
/// slow connection's. Each segment counts the bytes received and, separately, the bytes known to
/// be on the disk (`durable`): only those are saved, and a relaunch continues every segment from
/// them.
struct SegmentMap: Equatable, Sendable {
    /// One range of the file.
    struct Segment: Equatable, Sendable {
        /// The segment's first byte.
        var start: Int64
        /// One past its last byte. A segment another connection took half of ends earlier.
        var end: Int64
        /// Bytes from `start` on written to the partial file, in order.
        var received: Int64
        /// Bytes from `start` on known to be on the disk (a checkpoint saved them).
        var durable: Int64
        /// The connection working on it, if one is.
        var connection: Int?

        /// The next byte to ask for.
        var next: Int64 { start + received }
        /// Bytes still to receive.
        var remaining: Int64 { end - next }
        var isComplete: Bool { remaining == 0 }
    }

    /// The file's length.
    let length: Int64
    /// The smallest part worth a connection of its own.
    let minimumSize: Int64
    /// In the order of their bytes.
    private(set) var segments: [Segment]

    /// A map for a file of `length` bytes whose first `offset` bytes are on disk already, split in
    /// at most `connections` segments of at least `minimumSize` bytes (one segment when the rest
    /// is smaller than two).
    init(length: Int64, from offset: Int64 = 0, connections: Int, minimumSize: Int64) {
        self.length = length
        self.minimumSize = max(1, minimumSize)
        let rest = max(0, length - offset)
        let count = max(1, Int.clamped(rest / self.minimumSize, atMost: max(1, connections)))
        var segments: [Segment] = []
        if offset > 0 {
            segments.append(
                Segment(start: 0, end: min(offset, length), received: min(offset, length), durable: min(offset, length))
            )
        }
        for index in 0..<count {
            let start = offset + rest * Int64(index) / Int64(count)
            let end = offset + rest * Int64(index + 1) / Int64(count)
            segments.append(Segment(start: start, end: end, received: 0, durable: 0))
        }
        self.segments = segments.filter { $0.end > $0.start || length == 0 }
    }

    /// A map restored from saved segments: each continues from its durable bytes, of which only
    /// those within the partial file's `fileLength` count (a file cut shorter since lost the rest).
    /// Nil when the saved segments do not cover `length` bytes exactly, in order.
    init?(length: Int64, minimumSize: Int64, saved: [SavedSegment], fileLength: Int64) {
        self.length = length
        self.minimumSize = max(1, minimumSize)
        var expectedStart: Int64 = 0
        var segments: [Segment] = []
        for saved in saved.sorted(by: { $0.start < $1.start }) {
            guard saved.start == expectedStart, saved.end >= saved.start, saved.durable >= 0 else { return nil }
            let durable = max(0, min(saved.durable, saved.end - saved.start, fileLength - saved.start))
            segments.append(Segment(start: saved.start, end: saved.end, received: durable, durable: durable))
            expectedStart = saved.end
        }
        guard expectedStart == length else { return nil }
        self.segments = segments
    }

    /// What is saved: each segment's range and durable bytes.
    var saved: [SavedSegment] {
        segments.map { SavedSegment(start: $0.start, end: $0.end, durable: $0.durable) }
    }

    /// Bytes durable in all.
    var durable: Int64 { segments.reduce(0) { $0 + $1.durable } }

    /// How many connections could work at once: each missing part, split in pieces of at least
    /// ``minimumSize`` by takeovers.
    var usefulConnections: Int {
        // Summed as Int64 (at most the file's length plus the segments' count), then clamped: a
        // number of connections, compared with small limits.
        Int(clamping: segments.filter { !$0.isComplete }.reduce(Int64(0)) { $0 + max(1, $1.remaining / minimumSize) })
    }

    /// Whether every byte was received.
    var isComplete: Bool { segments.allSatisfy(\.isComplete) }

    /// Bytes received in all.
    var received: Int64 { segments.reduce(0) { $0 + $1.received } }

    /// Bytes from the file's start on that are durable with no gap before them: what a digest
    /// may have read, and what a single-connection resume could continue from.
    var durablePrefix: Int64 {
        var prefix: Int64 = 0
        for segment in segments {
            guard segment.start == prefix else { break }
            prefix += segment.durable
            guard segment.durable == segment.end - segment.start else { break }
        }
        return prefix
    }

    /// How many bytes just before file offset `offset` are durable, with no gap: what a request
    /// that continues there can ask for again and compare with the disk.
    func durableBytes(before offset: Int64) -> Int64 {
        var count: Int64 = 0
        var end = offset
        for segment in segments.reversed() where segment.start < end {
            // The segment's durable bytes must reach `end`, or the run stops.
            guard segment.start + segment.durable >= end else { break }
            count += end - segment.start
            end = segment.start
        }
        return count
    }

    /// The segment `connection` works on, if any.
    func segment(of connection: Int) -> Segment? {
        segments.first { $0.connection == connection }
    }

    /// Gives `connection` work: an unassigned segment with bytes left, else the second half of
    /// the largest remaining segment when that half is at least ``minimumSize``. Returns the
    /// segment, or nil when there is nothing worth a connection.
    mutating func assign(_ connection: Int) -> Segment? {
        if let current = segments.firstIndex(where: { $0.connection == connection }) {
            guard segments[current].isComplete else { return segments[current] }
            segments[current].connection = nil
        }
        if let free = segments.firstIndex(where: { $0.connection == nil && !$0.isComplete }) {
            segments[free].connection = connection
            return segments[free]
        }
        guard
            let largest = segments.indices.filter({ segments[$0].connection != nil })
                .max(by: { segments[$0].remaining < segments[$1].remaining }),
            segments[largest].remaining / 2 >= minimumSize
        else { return nil }
        let split = segments[largest].next + segments[largest].remaining / 2
        let taken = Segment(start: split, end: segments[largest].end, received: 0, durable: 0, connection: connection)
        segments[largest].end = split
        segments.insert(taken, at: largest + 1)
        return taken
    }

    /// `connection` stopped working on its segment (it failed, or was paused): the segment waits
    /// for another, from its received bytes.
    mutating func release(_ connection: Int) {
        for index in segments.indices where segments[index].connection == connection {
            segments[index].connection = nil
        }
    }

    /// `count` bytes arrived for the segment starting at `start`; returns how many of them are
    /// the segment's (a connection whose segment was shortened by a takeover gets fewer).
    mutating func receive(_ count: Int64, inSegmentAt start: Int64) -> Int64 {
        guard let index = segments.firstIndex(where: { $0.start == start }) else { return 0 }
        let taken = min(count, segments[index].remaining)
        segments[index].received += taken
        return taken
    }

    /// The segment starting at `start` has its bytes up to file offset `offset` on the disk.
    mutating func markDurable(upTo offset: Int64, inSegmentAt start: Int64) {
        guard let index = segments.firstIndex(where: { $0.start == start }) else { return }
        let durable = min(max(0, offset - start), segments[index].received)
        segments[index].durable = max(segments[index].durable, durable)
    }

    /// The bytes received so far are on the disk: every segment's received bytes become durable.
    mutating func checkpoint() {
        for index in segments.indices {
            segments[index].durable = segments[index].received
        }
    }

    /// The segment at `start` lost its bytes past the durable ones (a write failed): they are
    /// asked for again.
    mutating func rewind(segmentAt start: Int64) {
        guard let index = segments.firstIndex(where: { $0.start == start }) else { return }
        segments[index].received = segments[index].durable
    }

    /// The segment at `start` holds bytes of another file (its overlap did not match): it starts
    /// again from its first byte.
    mutating func restart(segmentAt start: Int64) {
        guard let index = segments.firstIndex(where: { $0.start == start }) else { return }
        segments[index].received = 0
        segments[index].durable = 0
    }

    /// Bytes lost since the last checkpoint are forgotten (the process died, or a write failed):
    /// every segment continues from its durable bytes.
    mutating func rewindToDurable() {
        for index in segments.indices {
            segments[index].received = segments[index].durable
            segments[index].connection = nil
        }
    }
}
