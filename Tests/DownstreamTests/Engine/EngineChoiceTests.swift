@testable import Downstream
import Foundation
import Testing

/// Which engine runs an attempt, decided on the record and the partial file alone.
@Suite struct EngineChoiceTests {
    static let url = URL(string: "http://files.test/file.bin")!
    static let mebibyte: Int64 = 1 << 20

    /// A record after a `206` with a strong validator for a file of 64 MiB: one that can be split.
    static func splittable() -> ResumeRecord {
        var record = ResumeRecord(url: url)
        record.validator = Validator(etag: "\"v1\"")
        record.expectedLength = 64 * mebibyte
        record.response = ServerResponse(url: url, statusCode: 206, headers: [:])
        return record
    }

    /// The record of a file that came in two segments, the first half on disk.
    static func withSegments() -> ResumeRecord {
        var record = splittable()
        record.segments = [
            SavedSegment(start: 0, end: 32 * mebibyte, durable: 32 * mebibyte),
            SavedSegment(start: 32 * mebibyte, end: 64 * mebibyte, durable: 0),
        ]
        return record
    }

    static func changed(_ record: ResumeRecord, _ change: (inout ResumeRecord) -> Void) -> ResumeRecord {
        var record = record
        change(&record)
        return record
    }

    enum Engine: String, Sendable { case ranged, segmented, system }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var facts: EngineChoice.Facts
        var expected: Engine
        var testDescription: String { name }
    }

    static let background = EngineChoice.SystemSessionAbility(supportsResumeData: true)
    static let noResumeData = EngineChoice.SystemSessionAbility(supportsResumeData: false)

    static func row(
        _ name: String, _ expected: Engine, kind: AttemptKind = .first, record: ResumeRecord = ResumeRecord(url: url),
        fileLength: Int64 = 0, system: EngineChoice.SystemSessionAbility? = nil, resumeData: Bool = false,
        connections: Int = 1, url: URL = url, rangesRefused: Bool = false
    ) -> Row {
        Row(
            name: name,
            facts: EngineChoice.Facts(
                kind: kind, url: url, record: record, hasSystemResumeData: resumeData, fileLength: fileLength,
                systemSession: system, connections: connections, minimumSegmentSize: 4 * mebibyte,
                rangesRefused: rangesRefused),
            expected: expected)
    }

    static let other = URL(string: "http://mirror.test/file.bin")!
    static let table: [Row] = [
        row("a new download, one connection", .ranged),
        row("a new download in a system session", .system, system: background),
        row("a continuation never goes to the system", .ranged, kind: .continuation, system: background),
        row("bytes a ranged request wrote, no resume data", .ranged, fileLength: 100, system: background),
        row("resume data the session can use", .system, fileLength: 100, system: background, resumeData: true),
        row("resume data the session cannot use", .ranged, fileLength: 100, system: noResumeData, resumeData: true),
        row("a restart goes to the system", .system, kind: .restart, fileLength: 100, system: background),
        row(
            "bytes of a record that may not be continued count as none", .system,
            record: changed(ResumeRecord(url: url)) { $0.isResumable = false }, fileLength: 100,
            system: background),
        row(
            "a splittable file, several connections", .segmented, record: splittable(), fileLength: 4 * mebibyte,
            connections: 4),
        row("a splittable file, one connection", .ranged, record: splittable(), fileLength: 4 * mebibyte),
        row(
            "ranges refused in this run", .ranged, record: splittable(), fileLength: 4 * mebibyte, connections: 4,
            rangesRefused: true),
        row(
            "the validator is another URL's", .ranged, record: splittable(), fileLength: 4 * mebibyte,
            connections: 4, url: other),
        row(
            "no validator that guards a range", .ranged,
            record: changed(splittable()) { $0.validator = Validator(etag: "W/\"weak\"") },
            fileLength: 4 * mebibyte, connections: 4),
        row(
            "less than two segments' worth to come", .ranged, record: splittable(), fileLength: 57 * mebibyte,
            connections: 4),
        row(
            "a 200 showed no ranges", .ranged,
            record: changed(splittable()) { $0.response = ServerResponse(url: url, statusCode: 200, headers: [:]) },
            fileLength: 4 * mebibyte, connections: 4),
        row(
            "saved segments continue on any URL, with one connection", .segmented, record: withSegments(),
            fileLength: 32 * mebibyte, url: other),
        row(
            "saved segments are dropped by a restart", .ranged, kind: .restart, record: withSegments(),
            fileLength: 32 * mebibyte, connections: 4),
        row(
            "saved segments with their bytes on disk stay off the system", .segmented, record: withSegments(),
            fileLength: 32 * mebibyte, system: background),
    ]

    @Test(arguments: table) func theEngineOfAnAttempt(_ row: Row) {
        let engine: Engine =
            switch EngineChoice.choose(row.facts) {
            case .ranged: .ranged
            case .segmented: .segmented
            case .system: .system
            }
        #expect(engine == row.expected, "\(row.name)")
    }

    @Test func aNewSplitCoversTheRestOfTheFileInSegmentsOfTheMinimumSizeOrMore() throws {
        let facts = Self.row("", .segmented, record: Self.splittable(), fileLength: 4 * Self.mebibyte, connections: 4)
            .facts
        guard case .segmented(let map) = EngineChoice.choose(facts) else {
            Issue.record("not segmented")
            return
        }
        #expect(map.length == 64 * Self.mebibyte)
        #expect(map.durablePrefix == 4 * Self.mebibyte)
        // The bytes on disk, then four segments of 15 MiB: as many as connections.
        let segments = map.segments.dropFirst()
        #expect(segments.count == 4)
        #expect(segments.allSatisfy { $0.end - $0.start == 15 * Self.mebibyte && $0.received == 0 })
    }

    @Test func bytesOnDiskAreTheDurableBytesOfEachSegmentWithinTheFile() {
        // The second segment's durable bytes lie beyond a file cut shorter: they do not count.
        var record = Self.withSegments()
        record.segments?[1].durable = 8 * Self.mebibyte
        #expect(EngineChoice.bytesOnDisk(record, fileLength: 40 * Self.mebibyte) == 40 * Self.mebibyte)
        #expect(EngineChoice.bytesOnDisk(record, fileLength: 16 * Self.mebibyte) == 16 * Self.mebibyte)
        #expect(EngineChoice.bytesOnDisk(ResumeRecord(url: Self.url), fileLength: 123) == 123)
    }
}
