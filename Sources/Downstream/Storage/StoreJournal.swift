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
///
/// A journal that holds no record is cut to its header (one `ftruncate`: a process killed before
/// it leaves frames that all cancel out, after it none, and there is no instant in between), and
/// the store's release removes it then, or compacts it when a fifth of it is frames no longer in
/// use. Only the process that holds the store alone has a journal, so no other process has
/// records in it.
///
/// The journal keeps no map of its frames while it runs (100,000 downloads may be queued): each
/// record's place says the length of its latest frame (``RecordPlace/journal(frameLength:)``),
/// which the journal takes away from its count of live bytes when the record changes; compaction
/// finds the latest frames by reading the journal. Only what opening found is kept, for the
/// store's first load.
final class StoreJournal: Sendable {
    static let fileName = "downloads.journal"
    /// A journal shorter than this is not compacted.
    static let compactionThreshold: Int64 = 1 << 20

    private struct State {
        var descriptor: Int32
        /// Where the next frame goes.
        var length: Int64
        /// The sum of the live frames' lengths (more, after removals of frames whose length was
        /// not known, until the next compaction counts them again).
        var liveBytes: Int64 = 0
        /// Where the latest frame of each download starts, as opening found them: kept for the
        /// store's first load (``forEachRecord(_:)``), then dropped.
        var opened: [UUID: Int64]?
        /// The downloads whose removal frame could not be written: their frame is still live
        /// (most often, none).
        var unremoved: Set<UUID> = []
        var isClosed = false
    }

    let path: String
    private let synchronizes: Bool
    private let duringWrite: (@Sendable () -> Void)?
    private let duringCut: (@Sendable () -> Void)?
    private let state: Locked<State>

    /// What opening the journal found.
    struct Opening {
        var journal: StoreJournal
        /// The damage found (the damaged part was cut off, and copied aside).
        var issue: RestorationIssue?
    }

    private init(
        path: String, state: State, synchronizes: Bool, duringWrite: (@Sendable () -> Void)?,
        duringCut: (@Sendable () -> Void)?
    ) {
        self.path = path
        self.state = Locked(state)
        self.synchronizes = synchronizes
        self.duringWrite = duringWrite
        self.duringCut = duringCut
    }

    deinit {
        close()
    }

    /// Opens (creating it if needed) the journal in `directory`, after cutting off a frame whose
    /// write was cut short (or damage, which is copied aside first and reported).
    /// - Parameters:
    ///   - duringWrite: called between the two halves of every frame's write (a test seam).
    ///   - duringCut: called when the journal, found to hold no record, is about to be cut to its
    ///     header or removed, or when its compacted copy is about to replace it (a test seam: what
    ///     is on disk then is what a process killed there leaves).
    static func open(
        in directory: String, synchronizes: Bool, duringWrite: (@Sendable () -> Void)? = nil,
        duringCut: (@Sendable () -> Void)? = nil
    ) throws(DownloadError) -> Opening {
        let path = POSIXFile.path(fileName, in: directory)
        // Its records are obeyed: only from a file nobody else can have written.
        try POSIXFile.checkTrusted(atPath: path)
        var issue: RestorationIssue?
        var length = POSIXFile.length(atPath: path) ?? 0
        var (end, live, liveBytes) = try latestFrames(path: path, length: length, verifying: true)
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
        var state = State(
            descriptor: descriptor, length: length, liveBytes: liveBytes, opened: live.mapValues(\.offset))
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
        let journal = StoreJournal(
            path: path, state: state, synchronizes: synchronizes, duringWrite: duringWrite, duringCut: duringCut)
        // Worth trying, not needed: a journal that stays long is compacted later (an empty one is
        // cut at its next removal, or removed at the store's release).
        try? journal.tidyAtOpening()
        return Opening(journal: journal, issue: issue)
    }

    /// Appends `record` (its JSON, `payload`) as download `id`'s latest record; returns the length
    /// of its frame, for the record's place.
    /// - Parameter previous: the length of the download's latest frame, if the journal holds it.
    @discardableResult
    func put(_ id: DownloadID, payload: [UInt8], replacing previous: Int?) throws(DownloadError) -> Int {
        let frame = JournalFrames.frame(.put, id, payload: payload)
        try append(frame, replacing: previous, of: id.rawValue)
        return frame.count
    }

    /// Appends that download `id` is gone.
    /// - Parameter previous: the length of the download's latest frame; nil when it is not known
    ///   (the frame is appended all the same: a removal of a download the journal does not hold
    ///   changes nothing).
    func remove(_ id: DownloadID, replacing previous: Int?) throws(DownloadError) {
        try append(JournalFrames.frame(.remove, id, payload: []), replacing: previous, of: id.rawValue, isRemoval: true)
    }

    /// Appends that download `id` is gone if an earlier removal frame of it could not be written
    /// (its record moved to a file of its own, whose removal does not involve the journal).
    func removeIfLeft(_ id: DownloadID) throws(DownloadError) {
        guard state.withLock({ $0.unremoved.contains(id.rawValue) }) else { return }
        try remove(id, replacing: nil)
    }

    /// Leaves the journal as small as it can be, then closes it: removes the file when it holds no
    /// record, else rewrites it with only the latest frame of each download when more than a fifth
    /// of it is frames no longer in use. For the store's release, while it still holds the store.
    /// Failures leave the journal as it was: it holds every record all the same.
    func compactAndClose() {
        state.withLock { state in
            guard !state.isClosed else { return }
            do throws(DownloadError) {
                let scan = try Self.latestFrames(path: path, length: state.length, verifying: false)
                if scan.live.isEmpty {
                    duringCut?()
                    POSIXFile.remove(atPath: path)
                } else if 4 * (state.length - Int64(JournalFrames.fileHeaderSize)) > 5 * scan.liveBytes {
                    try rewrite(&state, keeping: scan.live, liveBytes: scan.liveBytes)
                }
            } catch {
                // Kept as it is: it still holds every record.
            }
            // In the same hold of the lock: no frame goes to a journal just removed.
            state.isClosed = true
            POSIXFile.close(state.descriptor)
        }
    }

    /// Closes the file; later changes are not written.
    func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            POSIXFile.close(state.descriptor)
        }
    }

    /// Appends `frame`, download `id`'s, which replaces its frame of length `previous`.
    private func append(
        _ frame: [UInt8], replacing previous: Int?, of id: UUID, isRemoval: Bool = false
    ) throws(DownloadError) {
        let failure: DownloadError? = state.withLock { state in
            guard !state.isClosed else { return nil }
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
                if isRemoval { state.unremoved.insert(id) }
                return error
            }
            if isRemoval, !state.unremoved.isEmpty { state.unremoved.remove(id) }
            state.liveBytes += Int64(isRemoval ? 0 : frame.count) - Int64(previous ?? 0)
            // Before the first load, what it will read is kept up to date.
            if state.opened != nil { state.opened?[id] = isRemoval ? nil : state.length }
            state.length += Int64(frame.count)
            do throws(DownloadError) {
                if isRemoval, previous == nil, state.liveBytes > 0 {
                    // A removal of a frame whose length was not known (rare): counted again, so
                    // that the journal is cut when it holds nothing more.
                    state.liveBytes = try Self.latestFrames(path: path, length: state.length, verifying: false)
                        .liveBytes
                }
                if isRemoval, state.liveBytes <= 0 {
                    try cutIfEmpty(&state)
                }
                try compact(&state, slack: 3)
            } catch {
                // The journal as it is still holds every record: compaction is tried again later.
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Cuts a journal that holds no record (one a killed process left), or compacts one more than
    /// twice the size of its live frames.
    private func tidyAtOpening() throws(DownloadError) {
        let failure: DownloadError? = state.withLock { state in
            do throws(DownloadError) {
                if state.liveBytes <= 0 { try cutIfEmpty(&state) }
                try compact(&state, slack: 2)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Cuts the journal to its header if it holds no record. The count of live bytes only says
    /// when to look: the frames decide (a count that says none where the frames hold one is
    /// corrected instead).
    private func cutIfEmpty(_ state: inout State) throws(DownloadError) {
        let header = Int64(JournalFrames.fileHeaderSize)
        guard !state.isClosed, state.length > header else { return }
        let scan = try Self.latestFrames(path: path, length: state.length, verifying: false)
        guard scan.live.isEmpty else {
            state.liveBytes = scan.liveBytes
            return
        }
        duringCut?()
        // Every frame here is cancelled by a later one: the journal holds the same (nothing)
        // before and after, and a frame appended next goes after the header.
        try POSIXFile.truncate(state.descriptor, to: header, path: path)
        // Before the flush, which may fail: the next frame goes after the header all the same
        // (where the journal ended before would leave a gap of zeros, read as damage).
        state.length = header
        state.liveBytes = 0
        if state.opened != nil { state.opened = [:] }
        if synchronizes {
            try POSIXFile.synchronize(state.descriptor, path: path)
        }
    }

    /// Rewrites the journal with only its live frames when it is more than `slack` times their
    /// size (and longer than ``compactionThreshold``).
    private func compact(_ state: inout State, slack: Int64) throws(DownloadError) {
        guard !state.isClosed, state.length > Self.compactionThreshold, state.length > slack * state.liveBytes
        else { return }
        // Which frames are the latest: read from the journal, which the store does not keep.
        let (_, current, liveBytes) = try Self.latestFrames(path: path, length: state.length, verifying: false)
        try rewrite(&state, keeping: current, liveBytes: liveBytes)
    }

    /// Rewrites the journal with only the frames `current` names (a temporary file renamed over
    /// it: a process killed before the rename leaves the journal as it was, after it the copy).
    private func rewrite(
        _ state: inout State, keeping current: [UUID: Latest], liveBytes: Int64
    ) throws(DownloadError) {
        var compacted = JournalFrames.fileHeader
        // A hint only: appending fails on its own where the frames cannot fit in memory.
        compacted.reserveCapacity(Int.clamped(liveBytes, atMost: Int.max - compacted.count) + compacted.count)
        var moved: [UUID: Int64] = [:]
        let keepsOffsets = state.opened != nil
        try Self.forEachFrame(at: current.mapValues(\.offset), path: path, length: state.length, verifying: false) {
            if keepsOffsets { moved[$0.id] = Int64(compacted.count) }
            compacted.append(contentsOf: $0.bytes)
        }
        duringCut?()
        try AtomicFile.write(Data(compacted), to: URL(fileURLWithPath: path), synchronize: synchronizes)
        let descriptor = try POSIXFile.openForWriting(atPath: path)
        POSIXFile.close(state.descriptor)
        state.descriptor = descriptor
        state.length = Int64(compacted.count)
        state.liveBytes = liveBytes
        if state.opened != nil { state.opened = moved }
    }

    /// A download's latest frame in the journal.
    private struct Latest {
        var offset: Int64
        var length: Int
    }

    /// Reads the journal at `path` up to `length`: each download's latest frame, the sum of
    /// their lengths, and where the frames ended.
    private static func latestFrames(
        path: String, length: Int64, verifying: Bool
    ) throws(DownloadError) -> (end: JournalFrames.End, live: [UUID: Latest], liveBytes: Int64) {
        var live: [UUID: Latest] = [:]
        var liveBytes: Int64 = 0
        let end = try JournalFrames.scan(path: path, length: length, verifying: verifying) { frame in
            if let old = live[frame.id] { liveBytes -= Int64(old.length) }
            switch frame.kind {
            case .put:
                live[frame.id] = Latest(offset: frame.offset, length: frame.length)
                liveBytes += Int64(frame.length)
            case .remove:
                live[frame.id] = nil
            }
        }
        return (end, live, liveBytes)
    }

    /// Hands the latest record of each download the journal holds to `body`, as its JSON (valid
    /// only during the call) and the length of its frame, in the order they were written; reads a
    /// block at a time. For the store's first load: it uses, then drops, what opening found.
    func forEachRecord(_ body: (DownloadID, UnsafeRawBufferPointer, Int) -> Void) throws(DownloadError) {
        let (opened, length) = state.withLock { state in
            defer { state.opened = nil }
            return (state.opened, state.length)
        }
        var latest = opened ?? [:]
        if opened == nil {
            latest = try Self.latestFrames(path: path, length: length, verifying: false).live.mapValues(\.offset)
        }
        // Checked when the journal was opened; the frames after are this process's own.
        try Self.forEachFrame(at: latest, path: path, length: length, verifying: false) { frame in
            body(DownloadID(rawValue: frame.id), frame.payload, frame.length)
        }
    }

    /// Hands the latest record of each download in the journal in `directory` to `body`, without
    /// opening it for writing or repairing it (for tests and tools).
    static func forEachRecord(in directory: String, _ body: (DownloadID, UnsafeRawBufferPointer) -> Void) {
        let path = POSIXFile.path(fileName, in: directory)
        guard let length = POSIXFile.length(atPath: path),
            let latest = try? latestFrames(path: path, length: length, verifying: true).live.mapValues(\.offset)
        else { return }
        try? forEachFrame(at: latest, path: path, length: length, verifying: true) { frame in
            body(DownloadID(rawValue: frame.id), frame.payload)
        }
    }

    /// Hands `body` the frames that start where `latest` says, in the order they were written.
    private static func forEachFrame(
        at latest: [UUID: Int64], path: String, length: Int64, verifying: Bool, _ body: (JournalFrames.Frame) -> Void
    ) throws(DownloadError) {
        _ = try JournalFrames.scan(path: path, length: length, verifying: verifying) { frame in
            guard latest[frame.id] == frame.offset else { return }
            body(frame)
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
