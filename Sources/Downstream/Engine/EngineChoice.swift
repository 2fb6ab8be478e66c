import Foundation

/// Which engine runs an attempt: a pure decision on what the download's record and partial file
/// say, made on a file-work thread once the file's length is known.
enum EngineChoice: Equatable, Sendable {
    /// One connection, a range at a time (``RangedEngine``).
    case ranged
    /// Several connections, one segment of `map` each (``SegmentedEngine``).
    case segmented(SegmentMap)
    /// A system task of the manager's system session (``SystemEngine``).
    case system

    /// What the choice depends on.
    struct Facts: Equatable, Sendable {
        var kind: AttemptKind
        /// The URL the attempt asks.
        var url: URL
        /// What the record knows of the partial file.
        var record: ResumeRecord
        /// Whether the record holds Apple's resume data for a system task.
        var hasSystemResumeData = false
        /// The partial file's length on disk.
        var fileLength: Int64 = 0
        /// Whether the manager has a system session, and whether it can resume from resume data.
        var systemSession: SystemSessionAbility? = nil
        /// Whether the attempt continues a file at the destination, whose last bytes only the
        /// ranged engine compares before the file becomes the partial file.
        var continuesExistingFile = false
        /// How many connections the file may come over, and the smallest segment worth one.
        var connections = 1
        var minimumSegmentSize: Int64 = 4 << 20
        /// A server answered a segment's range with its whole file in this run.
        var rangesRefused = false
    }

    /// What a manager's system session can do.
    struct SystemSessionAbility: Equatable, Sendable {
        var supportsResumeData: Bool
        /// Whether a system task continues bytes a ranged request wrote (a handoff, see
        /// ``SystemUse``), with a ranged request of its own.
        var continuesBytesOnDisk = false
    }

    /// The engine for an attempt with `facts`:
    /// - the system session's, when there is one: for a restart, with resume data it can use, or
    ///   with no byte on disk (bytes that a ranged request wrote, without resume data, are
    ///   continued by the ranged engine, unless the session continues them: a handoff); never for
    ///   a continuation of a ranged request;
    /// - segments, when the record has them (after a pause or a relaunch, on any URL: each
    ///   segment compares the overlap before the bytes it continues), or when more than one
    ///   connection is allowed and an answer to a range showed the file's length and a validator
    ///   that can guard ranges, with at least two segments' worth of bytes to come;
    /// - else one connection; always for a file at the destination continued (its first request
    ///   compares its last bytes).
    static func choose(_ facts: Facts) -> EngineChoice {
        if facts.continuesExistingFile { return .ranged }
        if let session = facts.systemSession, facts.kind != .continuation {
            if facts.kind == .restart || (facts.hasSystemResumeData && session.supportsResumeData) {
                return .system
            }
            if bytesOnDisk(facts) == 0 || session.continuesBytesOnDisk { return .system }
        }
        return segmentMap(facts).map { .segmented($0) } ?? .ranged
    }

    /// The bytes of the partial file that count: the durable bytes of each segment, or the file's
    /// length; none when the record says the file is not to be continued.
    static func bytesOnDisk(_ facts: Facts) -> Int64 {
        guard facts.record.isResumable else { return 0 }
        return bytesOnDisk(facts.record, fileLength: facts.fileLength)
    }

    /// The bytes of a partial file of `fileLength` bytes that count by `record`.
    static func bytesOnDisk(_ record: ResumeRecord, fileLength: Int64) -> Int64 {
        guard let saved = record.segments, let length = record.expectedLength else { return fileLength }
        return SegmentMap(length: length, minimumSize: 1, saved: saved, fileLength: fileLength)?.durable ?? 0
    }

    private static func segmentMap(_ facts: Facts) -> SegmentMap? {
        let record = facts.record
        guard facts.kind != .restart, !facts.rangesRefused, record.isResumable, let length = record.expectedLength
        else { return nil }
        let minimumSize = max(1, facts.minimumSegmentSize)
        if let saved = record.segments {
            return SegmentMap(length: length, minimumSize: minimumSize, saved: saved, fileLength: facts.fileLength)
        }
        guard record.url == facts.url, record.validator.ifRangeValue != nil, facts.connections > 1,
            record.response?.statusCode == 206, facts.fileLength < length,
            length - facts.fileLength >= 2 * minimumSize
        else { return nil }
        return SegmentMap(
            length: length, from: facts.fileLength, connections: facts.connections, minimumSize: minimumSize)
    }
}
