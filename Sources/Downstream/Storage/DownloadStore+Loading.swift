import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a download's record is in its store (see ``DownloadStore``).
enum RecordPlace: Sendable, Equatable {
    /// In the store's journal, as a frame of this many bytes (the journal keeps no map of its
    /// frames: see ``StoreJournal``).
    case journal(frameLength: Int)
    /// In a file of its own, whose latest copy is at this position.
    case file(RecordSlots.Position)

    /// The length of the record's frame, if it is in the journal.
    var frameLength: Int? {
        if case .journal(let length) = self { length } else { nil }
    }
}

extension StoredDownload {
    /// Whether the record protects bytes that a later attempt continues from: bytes on disk that
    /// it calls durable, short of the whole file, or a system task's resume data. Only such a
    /// record is worth a file of its own: it changes at every checkpoint. (A record that says the
    /// whole file is on disk is written once, for the instants before the file is delivered.)
    var protectsBytes: Bool {
        if systemResumeData != nil || resume.segments?.contains(where: { $0.durable > 0 }) == true { return true }
        return resume.durableLength > 0 && resume.durableLength != resume.expectedLength
    }
}

extension DownloadStore {
    /// What the store held at launch.
    struct Contents: Sendable {
        var records: [LoadedRecord] = []
        var issues: [RestorationIssue] = []
    }

    /// Reads every record, oldest first; see ``load(repairing:_:)``.
    func load(repairing: Bool = true) -> Contents {
        var contents = Contents()
        contents.issues = load(repairing: repairing) { contents.records.append($0) }
        contents.records.sort { Self.isOlder($0.record, than: $1.record) }
        return contents
    }

    /// Whether `record` was made before `other` (the order a store gives its records back in).
    static func isOlder(_ record: StoredDownload, than other: StoredDownload) -> Bool {
        (record.created, record.id.rawValue.uuidString) < (other.created, other.id.rawValue.uuidString)
    }

    /// Reads every record, handing each to `body` (record files first, then the journal's records,
    /// in no particular order), and returns what could not be used. Records that cannot be used
    /// (damaged, truncated, or written by a newer version) are set aside and reported: a file is
    /// renamed, a journal's record copied to a file beside it and removed from the journal. Files
    /// of a record whose creation was interrupted, and temporary files of a replacement that was,
    /// are deleted.
    ///
    /// - Parameter repairing: false to only read: in a store shared by processes, what looks
    ///   interrupted may be another process's work under way.
    func load(repairing: Bool = true, _ body: (LoadedRecord) -> Void) -> [RestorationIssue] {
        var issues: [RestorationIssue] = journalIssue.map { [$0] } ?? []
        var inFiles: Set<UUID> = []
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
            switch Self.read(file, bases: bases, placement: placement) {
            case .record(let loaded):
                guard file.deletingPathExtension().lastPathComponent == loaded.record.id.rawValue.uuidString else {
                    issues.append(aside(Self.corruptExtension, "its name does not match its identifier"))
                    continue
                }
                inFiles.insert(loaded.record.id.rawValue)
                body(loaded)
            case .empty:
                if repairing { POSIXFile.remove(file) }
            case .damaged(let reason):
                issues.append(aside(Self.corruptExtension, reason))
            case .refused(let reason):
                issues.append(aside(Self.refusedExtension, reason))
            case .newer(let reason):
                issues.append(aside(Self.unsupportedExtension, reason))
            case .unresolved(let reason):
                // Left as it is: a launch that names the directory again restores it.
                issues.append(RestorationIssue(recordURL: file, reason: reason))
            }
        }
        guard let journal else { return issues }
        var movedToFiles: [(id: DownloadID, frameLength: Int)] = []
        do {
            try journal.forEachRecord { id, payload, frameLength in
                guard !inFiles.contains(id.rawValue) else {
                    // Its file was written, and the process ended before the journal said so.
                    movedToFiles.append((id, frameLength))
                    return
                }
                let aside = { (suffix: String, reason: String) in
                    issues.append(self.setAside(id, payload, frameLength, as: suffix, because: reason))
                }
                switch Self.decode(
                    payload, bases: bases, place: .journal(frameLength: frameLength),
                    placement: placement)
                {
                case .record(let loaded) where loaded.record.id == id:
                    body(loaded)
                case .record:
                    aside(Self.corruptExtension, "its identifier is not its frame's")
                case .empty, .damaged:
                    aside(Self.corruptExtension, "it is damaged")
                case .refused(let reason):
                    aside(Self.refusedExtension, reason)
                case .newer(let reason):
                    aside(Self.unsupportedExtension, reason)
                case .unresolved(let reason):
                    issues.append(
                        RestorationIssue(
                            recordURL: URL(fileURLWithPath: journal.path), reason: "download \(id): \(reason)"))
                }
            }
        } catch {
            issues.append(RestorationIssue(recordURL: URL(fileURLWithPath: journal.path), reason: "\(error)"))
        }
        for (id, frameLength) in movedToFiles {
            try? journal.remove(id, replacing: frameLength)
        }
        return issues
    }

    /// Reads record `id` as it is now, if it is in a file of its own and whole.
    func loadRecord(_ id: DownloadID) -> LoadedRecord? {
        guard
            case .record(let loaded) = Self.read(
                URL(fileURLWithPath: path(for: id)), bases: bases, placement: placement),
            loaded.record.id == id
        else { return nil }
        return loaded
    }

    /// Whether a record's partial file must be where Downstream puts partial files: when the store
    /// acts on its records (with the manager's partials directory, if it has one), not when a
    /// tool only reads them.
    enum Placement: Sendable {
        case checked(partialsDirectory: String?)
        case unchecked
    }

    /// What a record file holds.
    enum FileContents {
        case record(LoadedRecord)
        /// Nothing: the process ended while the file was being made.
        case empty
        case damaged(String)
        /// Not to be obeyed: a file others could have written, or one that names its partial file
        /// where Downstream does not put it (see ``PartialLocation/misplacement(of:destinationPath:destinationIsDirectory:partialsDirectory:)``).
        case refused(String)
        /// Written by a newer version of Downstream.
        case newer(String)
        /// Its paths are relative to a directory the configuration does not name (this time).
        case unresolved(String)
    }

    /// Reads the record file `file`, with its paths resolved against `bases` (by default, the
    /// home directory and the store that holds the file), and its partial file's place checked as
    /// `placement` says. A file others could have written is refused.
    static func read(_ file: URL, bases: PathBases? = nil, placement: Placement) -> FileContents {
        let data: Data
        do throws(DownloadError) {
            guard let read = try POSIXFile.readTrusted(atPath: file.path) else { return .damaged("it cannot be read") }
            data = read
        } catch {
            return .refused("it is not to be trusted: \(error.reason)")
        }
        switch RecordSlots.read(data) {
        case .record(let payload, let position, _):
            let bases = bases ?? PathBases(home: HomeDirectory.current, store: file.deletingLastPathComponent().path)
            return payload.withUnsafeBytes {
                decode($0, bases: bases, place: .file(position), placement: placement)
            }
        case .empty:
            return .empty
        case .damaged(let reason):
            return .damaged("it is damaged: \(reason)")
        case .newerFormat(let version):
            return .newer("it was written by a newer version of Downstream (file format \(version))")
        }
    }

    /// Every record in the store at `directory`, as it is on disk, without repairing anything
    /// (for tests and tools; a store in use belongs to its manager), with paths relative to the
    /// home directory resolved against `home` (by default the process's).
    static func records(in directory: URL, home: String? = HomeDirectory.current) -> [StoredDownload] {
        var records: [StoredDownload] = []
        var inFiles: Set<UUID> = []
        let bases = PathBases(home: home, store: directory.path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".\(recordExtension)") {
            if case .record(let loaded) = read(
                directory.appendingPathComponent(name, isDirectory: false), bases: bases, placement: .unchecked)
            {
                records.append(loaded.record)
                inFiles.insert(loaded.record.id.rawValue)
            }
        }
        StoreJournal.forEachRecord(in: directory.path) { id, payload in
            guard !inFiles.contains(id.rawValue),
                case .record(let loaded) = decode(
                    payload, bases: bases, place: .journal(frameLength: 0), placement: .unchecked)
            else { return }
            records.append(loaded.record)
        }
        return records.sorted { isOlder($0, than: $1) }
    }

    /// Reads a record from its JSON, with its paths resolved against `bases`; with a checked
    /// `placement`, one whose partial file is not where Downstream puts it (beside its
    /// destination, or in the partials directory) is refused.
    private static func decode(
        _ payload: UnsafeRawBufferPointer, bases: PathBases, place: RecordPlace, placement: Placement
    ) -> FileContents {
        do {
            let stored = try StoredDownload.decode(payload)
            guard stored.version <= StoredDownload.currentVersion else { return .newer(newerVersion(stored.version)) }
            guard let record = stored.resolvingPaths(bases) else {
                if bases.resolved("~home") == nil,
                    [stored.partialPath, stored.destination.path].contains(where: { $0.hasPrefix("~home/") })
                {
                    return .unresolved(
                        "it names its files relative to the home directory, and \(HomeDirectory.absence); "
                            + "set HOME to restore it: \(stored.partialPath)")
                }
                return .unresolved(
                    "it names its files relative to a directory the configuration does not name "
                        + "(storage.relocatableDirectories): \(stored.partialPath)")
            }
            if case .checked(let partialsDirectory) = placement,
                let misplacement = PartialLocation.misplacement(
                    of: record.partialPath, destinationPath: record.destination.path,
                    destinationIsDirectory: record.destination.isDirectory, partialsDirectory: partialsDirectory)
            {
                return .refused(misplacement)
            }
            return .record(LoadedRecord(record: record, place: place))
        } catch {
            // The version decides between damaged and newer.
            if let version = (try? JSONDecoder().decode(VersionProbe.self, from: Data(payload)))?.version,
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

    /// Copies a journal's record that cannot be used to a file of its own beside the journal,
    /// for inspection, and removes it from the journal.
    private func setAside(
        _ id: DownloadID, _ payload: UnsafeRawBufferPointer, _ frameLength: Int, as suffix: String,
        because reason: String
    ) -> RestorationIssue {
        let aside = directory.appendingPathComponent("\(id.rawValue.uuidString).\(Self.recordExtension).\(suffix)")
        let copied = (try? AtomicFile.write(Data(payload), to: aside)) != nil
        if copied { try? journal?.remove(id, replacing: frameLength) }
        return RestorationIssue(
            recordURL: copied ? aside : URL(fileURLWithPath: journal?.path ?? directory.path),
            reason: "download \(id)'s record in the journal: \(reason)")
    }

    private struct VersionProbe: Decodable {
        var version: Int
    }
}
