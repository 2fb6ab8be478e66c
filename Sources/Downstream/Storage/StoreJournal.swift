import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's journal: one append-only file holding the records of the downloads that have no
/// bytes to protect yet (queued, paused before their first byte, or small files on their way),
/// so that a queued download costs one write of a few hundred bytes, not a file of its own.
///
/// Each change of a record appends a frame (see ``JournalFrames``) with one `pwrite`: the latest
/// frame of a download wins, and a removal frame forgets it. A process killed at any instant
/// leaves every frame whose write returned, and at most one frame cut short at the end, which
/// the next opening cuts off before appending. When the frames no longer in use outweigh the
/// ones in use, the journal is rewritten with only the latest frame of each download
/// (compaction: a temporary file renamed over the journal).
final class StoreJournal: Sendable {
    static let fileName = "downloads.journal"
    /// A journal shorter than this is not compacted.
    static let compactionThreshold: Int64 = 1 << 20

    private struct State {
        var descriptor: Int32
        /// Where the next frame goes.
        var length: Int64
        /// The latest frame of each download in the journal: where it starts, and its length.
        var live: [UUID: (offset: Int64, length: Int32)] = [:]
        /// The sum of the live frames' lengths.
        var liveBytes: Int64 = 0
        var isClosed = false
    }

    let path: String
    private let synchronizes: Bool
    private let duringWrite: (@Sendable () -> Void)?
    private let state: Locked<State>

    /// What opening the journal found.
    struct Opening {
        var journal: StoreJournal
        /// The damage found (the damaged part was cut off, and copied aside).
        var issue: RestorationIssue?
    }

    private init(path: String, state: State, synchronizes: Bool, duringWrite: (@Sendable () -> Void)?) {
        self.path = path
        self.state = Locked(state)
        self.synchronizes = synchronizes
        self.duringWrite = duringWrite
    }

    deinit {
        close()
    }

    /// Opens (creating it if needed) the journal in `directory`, after cutting off a frame whose
    /// write was cut short (or damage, which is copied aside first and reported).
    static func open(
        in directory: String, synchronizes: Bool, duringWrite: (@Sendable () -> Void)? = nil
    ) throws(DownloadError) -> Opening {
        let path = POSIXFile.path(fileName, in: directory)
        var issue: RestorationIssue?
        var length = POSIXFile.length(atPath: path) ?? 0
        var live: [UUID: (offset: Int64, length: Int32)] = [:]
        var liveBytes: Int64 = 0
        let end = try JournalFrames.scan(path: path, length: length) { frame in
            if let old = live[frame.id] { liveBytes -= Int64(old.length) }
            switch frame.kind {
            case .put:
                live[frame.id] = (frame.offset, Int32(frame.length))
                liveBytes += Int64(frame.length)
            case .remove:
                live[frame.id] = nil
            }
        }
        switch end {
        case .whole(let wholeLength):
            length = wholeLength
        case .damaged(let offset, let reason):
            issue = setAside(path, as: "corrupt", because: "the journal is damaged after byte \(offset) (\(reason))")
            length = offset
        case .newerFormat(let version):
            issue = setAside(
                path, as: "unsupported",
                because: "it was written by a newer version of Downstream (journal format \(version))")
            (length, live, liveBytes) = (0, [:], 0)
        case .notAJournal:
            issue = setAside(path, as: "corrupt", because: "it is not a journal")
            (length, live, liveBytes) = (0, [:], 0)
        }
        let descriptor = try POSIXFile.openForWriting(atPath: path)
        var state = State(descriptor: descriptor, length: length, live: live, liveBytes: liveBytes)
        do throws(DownloadError) {
            if length < Int64(JournalFrames.fileHeaderSize) {
                try POSIXFile.truncate(descriptor, to: 0, path: path)
                try write(JournalFrames.fileHeader, to: descriptor, at: 0, path: path, synchronizes: synchronizes)
                state.length = Int64(JournalFrames.fileHeaderSize)
            } else if let fileLength = POSIXFile.length(atPath: path), fileLength != length {
                // The frame whose write was cut short (or the damage) goes: frames come after it.
                try POSIXFile.truncate(descriptor, to: length, path: path)
            }
        } catch {
            POSIXFile.close(descriptor)
            throw error
        }
        let journal = StoreJournal(path: path, state: state, synchronizes: synchronizes, duringWrite: duringWrite)
        // Worth trying, not needed: a journal that stays long is compacted later.
        try? journal.compactIfWorthIt(slack: 2)
        return Opening(journal: journal, issue: issue)
    }

    /// Appends `record` (its JSON, `payload`) as download `id`'s latest record.
    func put(_ id: DownloadID, payload: [UInt8]) throws(DownloadError) {
        try append(JournalFrames.frame(.put, id, payload: payload), for: id.rawValue, isRemoval: false)
    }

    /// Appends that download `id` is gone; nothing when the journal does not hold it.
    func remove(_ id: DownloadID) throws(DownloadError) {
        try append(JournalFrames.frame(.remove, id, payload: []), for: id.rawValue, isRemoval: true)
    }

    /// Whether the journal holds download `id`.
    func holds(_ id: DownloadID) -> Bool {
        state.withLock { $0.live[id.rawValue] != nil }
    }

    /// Closes the file; later changes are not written.
    func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            POSIXFile.close(state.descriptor)
        }
    }

    private func append(_ frame: [UInt8], for id: UUID, isRemoval: Bool) throws(DownloadError) {
        let failure: DownloadError? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let old = state.live[id]
            if isRemoval, old == nil { return nil }
            do throws(DownloadError) {
                if let duringWrite {
                    let half = frame.count / 2
                    try Self.write(
                        Array(frame[..<half]), to: state.descriptor, at: state.length, path: path, synchronizes: false)
                    duringWrite()
                    try Self.write(
                        Array(frame[half...]), to: state.descriptor, at: state.length + Int64(half), path: path,
                        synchronizes: synchronizes)
                } else {
                    try Self.write(
                        frame, to: state.descriptor, at: state.length, path: path, synchronizes: synchronizes)
                }
            } catch {
                // A frame written in part is cut off when the journal is opened next, and
                // overwritten by the next frame in this process.
                return error
            }
            if let old { state.liveBytes -= Int64(old.length) }
            if isRemoval {
                state.live[id] = nil
            } else {
                state.live[id] = (state.length, Int32(frame.count))
                state.liveBytes += Int64(frame.count)
            }
            state.length += Int64(frame.count)
            do throws(DownloadError) {
                try compact(&state, slack: 3)
            } catch {
                // The journal as it is still holds every record: compaction is tried again later.
            }
            return nil
        }
        if let failure { throw failure }
    }

    private func compactIfWorthIt(slack: Int64) throws(DownloadError) {
        let failure: DownloadError? = state.withLock { state in
            do throws(DownloadError) {
                try compact(&state, slack: slack)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Rewrites the journal with only its live frames when it is more than `slack` times their
    /// size (and longer than ``compactionThreshold``).
    private func compact(_ state: inout State, slack: Int64) throws(DownloadError) {
        guard !state.isClosed, state.length > Self.compactionThreshold, state.length > slack * state.liveBytes
        else { return }
        var compacted = JournalFrames.fileHeader
        compacted.reserveCapacity(Int(state.liveBytes) + compacted.count)
        var live: [UUID: (offset: Int64, length: Int32)] = [:]
        live.reserveCapacity(state.live.count)
        let current = state.live
        _ = try JournalFrames.scan(path: path, length: state.length) { frame in
            guard let latest = current[frame.id], latest.offset == frame.offset else { return }
            live[frame.id] = (Int64(compacted.count), latest.length)
            compacted.append(contentsOf: frame.bytes)
        }
        try AtomicFile.write(Data(compacted), to: URL(fileURLWithPath: path), synchronize: synchronizes)
        let descriptor = try POSIXFile.openForWriting(atPath: path)
        POSIXFile.close(state.descriptor)
        state.descriptor = descriptor
        state.length = Int64(compacted.count)
        state.live = live
    }

    /// Hands the latest record of each download the journal holds to `body`, as its JSON (valid
    /// only during the call), in the order they were written; reads a block at a time.
    func forEachRecord(_ body: (DownloadID, UnsafeRawBufferPointer) -> Void) throws(DownloadError) {
        let (live, length) = state.withLock { ($0.live, $0.length) }
        // Checked when the journal was opened; the frames after are this process's own.
        _ = try JournalFrames.scan(path: path, length: length, verifying: false) { frame in
            guard live[frame.id]?.offset == frame.offset else { return }
            body(DownloadID(rawValue: frame.id), frame.payload)
        }
    }

    /// Hands the latest record of each download in the journal in `directory` to `body`, without
    /// opening it for writing or repairing it (for tests and tools).
    static func forEachRecord(in directory: String, _ body: (DownloadID, UnsafeRawBufferPointer) -> Void) {
        let path = POSIXFile.path(fileName, in: directory)
        guard let length = POSIXFile.length(atPath: path) else { return }
        var latest: [UUID: Int64] = [:]
        _ = try? JournalFrames.scan(path: path, length: length) { frame in
            latest[frame.id] = frame.kind == .put ? frame.offset : nil
        }
        _ = try? JournalFrames.scan(path: path, length: length) { frame in
            guard latest[frame.id] == frame.offset else { return }
            body(DownloadID(rawValue: frame.id), frame.payload)
        }
    }

    private static func write(
        _ bytes: [UInt8], to descriptor: Int32, at offset: Int64, path: String, synchronizes: Bool
    ) throws(DownloadError) {
        let errorNumber = bytes.withUnsafeBytes { POSIXFile.write(descriptor, $0, at: offset).errorNumber }
        if let errorNumber {
            throw POSIXFile.failure(path, "cannot write the journal", errorNumber: errorNumber)
        }
        if synchronizes {
            try POSIXFile.synchronize(descriptor, path: path)
        }
    }

    /// Moves the journal at `path` aside (a copy, for a damaged one, whose whole part is kept).
    private static func setAside(_ path: String, as suffix: String, because reason: String) -> RestorationIssue {
        let aside = path + "." + suffix
        POSIXFile.remove(atPath: aside)
        let copied = (try? FileManager.default.copyItem(atPath: path, toPath: aside)) != nil
        return RestorationIssue(recordURL: URL(fileURLWithPath: copied ? aside : path), reason: reason)
    }
}
