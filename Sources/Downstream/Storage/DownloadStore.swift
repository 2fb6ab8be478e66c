import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directory where a manager keeps one record per download, so that its downloads survive
/// the process.
///
/// A record lives in one of two places (``RecordPlace``):
/// - **The journal** (``StoreJournal``), one append-only file for every download that has no
///   bytes to protect yet: queued, paused before its first byte, or a small file that finishes
///   before its first checkpoint. A change appends a frame; queueing 100,000 downloads writes one
///   file, not 100,000.
/// - **A file of its own**, from the first change that protects bytes (bytes on disk the record
///   calls durable, or a system task's resume data) to the download's end. The file is named by
///   download identifier and holds the record as JSON in two slots (see ``RecordSlots``): it is
///   made once, and each update overwrites the older slot in place, so that a process killed (or
///   a power cut, with `synchronizes`) at any instant leaves a whole copy, old or new. Updates
///   make no new file: on ext4, each new file costs an inode allocation, which is slow for about
///   30 seconds after many files were deleted.
///
/// A store whose downloads all ended holds only its lock: the journal is cut to its header when it
/// holds no record, and removed at the store's release (see ``release()``).
///
/// A record moves from the journal to its file by writing the file, then a removal frame: a
/// process killed in between leaves both, and the file wins. A store shared by processes keeps
/// every record in a file of its own (the journal belongs to one process), as records of older
/// versions are.
///
/// The store belongs to one manager at a time: within a process by identifier, and by
/// ``StoreLock`` (a record lock on `.lock` in the directory, which the kernel releases when the
/// process dies; taking it never waits). A store shared by processes takes that lock shared
/// instead (so a shared and an unshared use never meet), and its managers hold each download's
/// place (see ``StoreClaims``).
final class DownloadStore: Sendable {
    static let recordExtension = "record"
    static let corruptExtension = "corrupt"
    static let unsupportedExtension = "unsupported"
    static let refusedExtension = "refused"
    private static let identifiersInUse = Locked<Set<String>>([])

    let directory: URL
    /// The directories records name their files relative to.
    let bases: PathBases
    /// How a record's partial file is checked (see ``PartialLocation``): where Downstream puts
    /// partial files, with the manager's partials directory.
    let placement: Placement
    private let directoryPath: String
    private let identifier: String
    private let storeLock: StoreLock
    private let isReleased = Locked(false)
    private let synchronizes: Bool
    private let duringWrite: (@Sendable () -> Void)?
    /// For a store shared by processes, which of them has which place.
    let claims: StoreClaims?
    /// The journal of records with no bytes to protect; nil in a store shared by processes.
    let journal: StoreJournal?
    /// Damage the journal had when it was opened.
    let journalIssue: RestorationIssue?

    /// Claims `identifier` in this process and the store at `directory` among processes.
    ///
    /// - Parameters:
    ///   - relocatableDirectories: the app's directories that records name files relative to, by
    ///     name (see ``PathBases``); the home directory is `home`, or the process's (see
    ///     ``HomeDirectory``). A process without one still has a store: records then name files
    ///     relative to the other bases, or absolutely.
    ///   - partialsDirectory: the manager's directory of partial files, if it has one: a record
    ///     whose partial file is neither there nor beside its destination is refused.
    ///   - sharedByProcesses: whether managers of other processes may use the store at the same
    ///     time (see ``StoreClaims``).
    ///   - synchronizes: whether each write of a record is on the disk (`fsync`) before it returns.
    ///   - journals: false to keep every record in a file of its own (a benchmark's baseline).
    ///   - duringWrite: called in the middle of every update of a record, between writing its slot's
    ///     header up to the sequence number and the rest: a test seam for kills that tear a write.
    init(
        identifier: String, directory: URL, relocatableDirectories: [String: URL] = [:], home: String? = nil,
        partialsDirectory: URL? = nil, sharedByProcesses: Bool = false, synchronizes: Bool = false,
        journals: Bool = true,
        duringWrite: (@Sendable () -> Void)? = nil
    ) throws(DownloadError) {
        let claimed = Self.identifiersInUse.withLock { $0.insert(identifier).inserted }
        guard claimed else {
            throw .managerUnavailable(
                "another DownloadManager with the identifier \"\(identifier)\" exists in this process; "
                    + "keep one manager per identifier")
        }
        do {
            try POSIXFile.createPrivateDirectory(directory)
            try POSIXFile.checkIsOwnDirectory(directory)
            claims = sharedByProcesses ? try StoreClaims.of(directory) : nil
            storeLock = try StoreLock.take(directory, shared: sharedByProcesses)
            if sharedByProcesses || !journals {
                (journal, journalIssue) = (nil, nil)
            } else {
                let opening = try StoreJournal.open(
                    in: directory.path, synchronizes: synchronizes, duringWrite: duringWrite)
                (journal, journalIssue) = (opening.journal, opening.issue)
            }
        } catch {
            _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
            throw error
        }
        self.identifier = identifier
        self.directory = directory
        bases = PathBases(
            home: home ?? HomeDirectory.current, store: directory.path, registered: relocatableDirectories)
        placement = .checked(partialsDirectory: partialsDirectory?.path)
        directoryPath = directory.path
        self.synchronizes = synchronizes
        self.duringWrite = duringWrite
    }

    deinit {
        release()
    }

    /// Gives the identifier and the store up: another manager may use them now. Records are no
    /// longer written or removed. The journal is removed if it holds no record, else compacted
    /// when worth it (see ``StoreJournal/compactAndClose()``), before the store's lock is given up.
    func release() {
        guard isReleased.setFirst() else { return }
        journal?.compactAndClose()
        storeLock.release()
        _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
    }

    /// The path of record `id`'s file: made as text, which is much cheaper than a URL.
    func path(for id: DownloadID) -> String {
        "\(directoryPath)/\(id.text).\(Self.recordExtension)"
    }

    /// Writes a new record: in the journal when it protects no bytes, else in a new file of its
    /// own; returns where it is.
    func create(_ record: StoredDownload) throws(DownloadError) -> RecordPlace {
        guard !isReleased.value else { return .journal(frameLength: 0) }
        if let journal, !record.protectsBytes {
            return .journal(
                frameLength: try journal.put(record.id, payload: record.jsonBytes(relativeTo: bases), replacing: nil))
        }
        return .file(try createFile(record))
    }

    /// Writes the first copy of a record, in a new file; returns where the copy is.
    private func createFile(_ record: StoredDownload) throws(DownloadError) -> RecordSlots.Position {
        let payload = record.json(relativeTo: bases)
        let path = path(for: record.id)
        let descriptor: Int32
        do {
            descriptor = try POSIXFile.openForWriting(atPath: path, exclusive: true)
        } catch  where POSIXFile.length(atPath: path) != nil {
            // Left by a process killed after it wrote the file and before the journal's
            // removal frame: replaced (by a rename, never written through).
            return try replace(path, with: payload, sequence: 0)
        }
        let position = RecordSlots.firstPosition(for: payload.count)
        do {
            try writeAll(RecordSlots.file(payload, at: position), to: descriptor, at: 0, path: path)
            POSIXFile.close(descriptor)
        } catch {
            POSIXFile.close(descriptor)
            POSIXFile.remove(atPath: path)
            throw error
        }
        return position
    }

    /// Writes `record` over its copy at `place`; returns where the new copy is. A record in the
    /// journal that now protects bytes moves to a file of its own.
    func update(_ record: StoredDownload, at place: RecordPlace) throws(DownloadError) -> RecordPlace {
        guard !isReleased.value else { return place }
        switch place {
        case .journal(let frameLength):
            guard let journal else { return .file(try createFile(record)) }
            guard record.protectsBytes else {
                let payload = record.jsonBytes(relativeTo: bases)
                return .journal(frameLength: try journal.put(record.id, payload: payload, replacing: frameLength))
            }
            let position = try createFile(record)
            // The file wins over the journal's frame: a failure here leaves both, harmlessly.
            try? journal.remove(record.id, replacing: frameLength)
            return .file(position)
        case .file(let position):
            return .file(try updateFile(record, after: position))
        }
    }

    /// Writes `record` as the copy after the one at `position`, over the older copy; returns
    /// where the new copy is.
    private func updateFile(
        _ record: StoredDownload, after position: RecordSlots.Position
    ) throws(DownloadError) -> RecordSlots.Position {
        let payload = record.json(relativeTo: bases)
        let next = position.next
        let path = path(for: record.id)
        guard next.fits(payload.count) else {
            return try replace(path, with: payload, sequence: next.sequence)
        }
        guard let descriptor = try POSIXFile.openExistingOwnFile(atPath: path, flags: O_WRONLY) else {
            // Deleted behind the store's back: write it anew.
            return try replace(path, with: payload, sequence: next.sequence)
        }
        defer { POSIXFile.close(descriptor) }
        let slot = RecordSlots.slot(payload, at: next)
        if let duringWrite {
            // Cut after the new sequence number: the copy being replaced is broken whatever the
            // payloads. (Cut in the payload, the unwritten part can equal the old copy's bytes there
            // — a record's history, last in its JSON, rarely changes — and the slot reads whole.)
            let cut = RecordSlots.sequenceEnd
            try writeAll(Array(slot[..<cut]), to: descriptor, at: next.offset, path: path, synchronizing: false)
            duringWrite()
            try writeAll(Array(slot[cut...]), to: descriptor, at: next.offset + cut, path: path)
        } else {
            try writeAll(slot, to: descriptor, at: next.offset, path: path)
        }
        return next
    }

    /// Replaces the file at `path` (atomically: a temporary file, then a rename) by one with
    /// slots made for `payload`.
    private func replace(
        _ path: String, with payload: Data, sequence: UInt64
    ) throws(DownloadError) -> RecordSlots.Position {
        var position = RecordSlots.firstPosition(for: payload.count)
        position.sequence = sequence
        let file = Data(RecordSlots.file(payload, at: position))
        try AtomicFile.write(file, to: URL(fileURLWithPath: path, isDirectory: false), synchronize: synchronizes)
        return position
    }

    private func writeAll(
        _ bytes: [UInt8], to descriptor: Int32, at offset: Int, path: String, synchronizing: Bool? = nil
    ) throws(DownloadError) {
        let errorNumber = bytes.withUnsafeBytes { POSIXFile.write(descriptor, $0, at: Int64(offset)).errorNumber }
        if let errorNumber {
            throw POSIXFile.failure(path, "cannot write the record", errorNumber: errorNumber)
        }
        if synchronizing ?? synchronizes {
            try POSIXFile.synchronize(descriptor, path: path)
        }
    }

    /// Removes record `id` from `place`, or from wherever it is when `place` is nil.
    func remove(_ id: DownloadID, from place: RecordPlace? = nil) {
        guard !isReleased.value else { return }
        switch place {
        case .journal(let frameLength):
            try? journal?.remove(id, replacing: frameLength)
        case .file:
            POSIXFile.remove(atPath: path(for: id))
            // The journal may still hold it, if its move to a file could not say so there.
            try? journal?.removeIfLeft(id)
        case nil:
            POSIXFile.remove(atPath: path(for: id))
            try? journal?.remove(id, replacing: nil)
        }
    }

    /// A record read back, and where its latest copy is.
    struct LoadedRecord: Sendable {
        var record: StoredDownload
        var place: RecordPlace
    }

}
