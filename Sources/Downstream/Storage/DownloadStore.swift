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
/// Each record is a file named by download identifier, holding the record as JSON in two slots
/// (see ``RecordSlots``): the file is made once, with the first copy, and each update overwrites
/// the older slot in place, so that a process killed (or a power cut, with `synchronizes`) at any
/// instant leaves a whole copy, old or new. Updates make no new file: on ext4, each new file
/// costs an inode allocation, which is slow for about 30 seconds after many files were deleted,
/// and a download's record changes several times in its life.
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
    private static let identifiersInUse = Locked<Set<String>>([])

    let directory: URL
    /// The directories records name their files relative to.
    let bases: PathBases
    private let directoryPath: String
    private let identifier: String
    private let storeLock: StoreLock
    private let isReleased = Locked(false)
    private let synchronizes: Bool
    private let duringWrite: (@Sendable () -> Void)?
    /// For a store shared by processes, which of them has which place.
    let claims: StoreClaims?

    /// Claims `identifier` in this process and the store at `directory` among processes.
    ///
    /// - Parameters:
    ///   - relocatableDirectories: the app's directories that records name files relative to, by
    ///     name (see ``PathBases``); the home directory is `home`'s, or the process's.
    ///   - sharedByProcesses: whether managers of other processes may use the store at the same
    ///     time (see ``StoreClaims``).
    ///   - synchronizes: whether each write of a record is on the disk (`fsync`) before it returns.
    ///   - duringWrite: called in the middle of every update of a record, between writing the first
    ///     and the second half of its slot: a test seam for kills that tear a write.
    init(
        identifier: String, directory: URL, relocatableDirectories: [String: URL] = [:], home: String? = nil,
        sharedByProcesses: Bool = false, synchronizes: Bool = false, duringWrite: (@Sendable () -> Void)? = nil
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
        } catch {
            _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
            throw error
        }
        self.identifier = identifier
        self.directory = directory
        bases = PathBases(
            home: home ?? NSHomeDirectory(), store: directory.path, registered: relocatableDirectories)
        directoryPath = directory.path
        self.synchronizes = synchronizes
        self.duringWrite = duringWrite
    }

    deinit {
        release()
    }

    /// Gives the identifier and the store up: another manager may use them now. Records are no
    /// longer written or removed.
    func release() {
        guard isReleased.setFirst() else { return }
        storeLock.release()
        _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
    }

    /// The path of record `id`'s file: made as text, which is much cheaper than a URL.
    func path(for id: DownloadID) -> String {
        "\(directoryPath)/\(id.rawValue.uuidString).\(Self.recordExtension)"
    }

    /// Writes the first copy of a new record, in a new file; returns where the copy is.
    func create(_ record: StoredDownload) throws(DownloadError) -> RecordSlots.Position {
        let payload = record.json(relativeTo: bases)
        let position = RecordSlots.firstPosition(for: payload.count)
        guard !isReleased.value else { return position }
        let path = path(for: record.id)
        let descriptor = try POSIXFile.openForWriting(atPath: path, exclusive: true)
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

    /// Writes `record` as the copy after the one at `position`, over the older copy; returns
    /// where the new copy is.
    func update(
        _ record: StoredDownload, after position: RecordSlots.Position
    ) throws(DownloadError) -> RecordSlots.Position {
        let payload = record.json(relativeTo: bases)
        let next = position.next
        guard !isReleased.value else { return next }
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
            let half = slot.count / 2
            try writeAll(Array(slot[..<half]), to: descriptor, at: next.offset, path: path, synchronizing: false)
            duringWrite()
            try writeAll(Array(slot[half...]), to: descriptor, at: next.offset + half, path: path)
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

    func remove(_ id: DownloadID) {
        guard !isReleased.value else { return }
        POSIXFile.remove(atPath: path(for: id))
    }

    /// A record read back, and where its latest copy is.
    struct LoadedRecord: Sendable {
        var record: StoredDownload
        var position: RecordSlots.Position
    }

    /// What the store held at launch.
    struct Contents: Sendable {
        var records: [LoadedRecord] = []
        var issues: [RestorationIssue] = []
    }

    /// Reads every record, oldest first. Records that cannot be used (damaged, truncated, or
    /// written by a newer version) are renamed aside and reported; files of a record whose
    /// creation was interrupted, and temporary files of a replacement that was, are deleted.
    ///
    /// - Parameter repairing: false to only read: in a store shared by processes, what looks
    ///   interrupted may be another process's work under way.
    func load(repairing: Bool = true) -> Contents {
        var contents = Contents()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            let file = directory.appendingPathComponent(name, isDirectory: false)
            if AtomicFile.isTemporary(name) {
                if repairing { POSIXFile.remove(file) }
                continue
            }
            guard file.pathExtension == Self.recordExtension else { continue }
            let aside: (String, String) -> RestorationIssue = { [self] suffix, reason in
                repairing
                    ? setAside(file, as: suffix, because: reason) : RestorationIssue(recordURL: file, reason: reason)
            }
            switch Self.read(file, bases: bases) {
            case .record(let loaded):
                guard file.deletingPathExtension().lastPathComponent == loaded.record.id.rawValue.uuidString else {
                    contents.issues.append(aside(Self.corruptExtension, "its name does not match its identifier"))
                    continue
                }
                contents.records.append(loaded)
            case .empty:
                if repairing { POSIXFile.remove(file) }
            case .damaged(let reason):
                contents.issues.append(aside(Self.corruptExtension, reason))
            case .newer(let reason):
                contents.issues.append(aside(Self.unsupportedExtension, reason))
            case .unresolved(let reason):
                // Left as it is: a launch that names the directory again restores it.
                contents.issues.append(RestorationIssue(recordURL: file, reason: reason))
            }
        }
        contents.records.sort {
            ($0.record.created, $0.record.id.rawValue.uuidString) < (
                $1.record.created, $1.record.id.rawValue.uuidString
            )
        }
        return contents
    }

    /// Reads record `id` as it is now, if it is there and whole.
    func loadRecord(_ id: DownloadID) -> LoadedRecord? {
        guard case .record(let loaded) = Self.read(URL(fileURLWithPath: path(for: id)), bases: bases),
            loaded.record.id == id
        else { return nil }
        return loaded
    }

    /// What a record file holds.
    enum FileContents {
        case record(LoadedRecord)
        /// Nothing: the process ended while the file was being made.
        case empty
        case damaged(String)
        /// Written by a newer version of Downstream.
        case newer(String)
        /// Its paths are relative to a directory the configuration does not name (this time).
        case unresolved(String)
    }

    /// Reads the record file `file`, with its paths resolved against `bases` (by default, the
    /// home directory and the store that holds the file).
    static func read(_ file: URL, bases: PathBases? = nil) -> FileContents {
        guard let data = try? Data(contentsOf: file) else { return .damaged("it cannot be read") }
        let payload: Data
        let position: RecordSlots.Position
        switch RecordSlots.read(data) {
        case .record(let bytes, let at, _):
            (payload, position) = (bytes, at)
        case .empty:
            return .empty
        case .damaged(let reason):
            return .damaged("it is damaged: \(reason)")
        case .newerFormat(let version):
            return .newer("it was written by a newer version of Downstream (file format \(version))")
        }
        // The common case parses once; the version decides between damaged and newer.
        let decoder = JSONDecoder()
        do {
            let stored = try decoder.decode(StoredDownload.self, from: payload)
            guard stored.version <= StoredDownload.currentVersion else { return .newer(newerVersion(stored.version)) }
            let bases = bases ?? PathBases(home: NSHomeDirectory(), store: file.deletingLastPathComponent().path)
            guard let record = stored.resolvingPaths(bases) else {
                return .unresolved(
                    "it names its files relative to a directory the configuration does not name "
                        + "(storage.relocatableDirectories): \(stored.partialPath)")
            }
            return .record(LoadedRecord(record: record, position: position))
        } catch {
            if let version = (try? decoder.decode(VersionProbe.self, from: payload))?.version,
                version > StoredDownload.currentVersion
            {
                return .newer(newerVersion(version))
            }
            return .damaged("it is damaged: \(error)")
        }
    }

    private static func newerVersion(_ version: Int) -> String {
        "it was written by a newer version of Downstream (record version \(version))"
    }

    private func setAside(_ file: URL, as suffix: String, because reason: String) -> RestorationIssue {
        let aside = file.appendingPathExtension(suffix)
        POSIXFile.remove(aside)
        let moved = rename(file.path, aside.path) == 0
        return RestorationIssue(recordURL: moved ? aside : file, reason: reason)
    }

    private struct VersionProbe: Decodable {
        var version: Int
    }
}
