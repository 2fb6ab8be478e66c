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
/// Records are JSON files named by download identifier, written atomically (a temporary file,
/// then a rename), so a process killed at any instant leaves each record whole: old or new.
/// The store belongs to one manager at a time: within a process by identifier, across processes
/// by an advisory lock (`flock`) on `.lock` in the directory, which the kernel releases when the
/// process dies.
final class DownloadStore: Sendable {
    static let recordExtension = "json"
    static let corruptExtension = "corrupt"
    static let unsupportedExtension = "unsupported"
    private static let identifiersInUse = Locked<Set<String>>([])

    let directory: URL
    private let identifier: String
    private let lockDescriptor: Int32
    private let isReleased = Locked(false)
    private let synchronizes: Bool
    private let beforeRename: (@Sendable () -> Void)?

    /// Claims `identifier` in this process and the store at `directory` among processes.
    ///
    /// - Parameters:
    ///   - synchronizes: whether each record is on the disk (`fsync`) before it replaces the old one.
    ///   - beforeRename: called inside every record write, between writing the temporary file and
    ///     renaming it: a test seam for kills in the middle of a write.
    init(
        identifier: String, directory: URL, synchronizes: Bool = false, beforeRename: (@Sendable () -> Void)? = nil
    ) throws(DownloadError) {
        let claimed = Self.identifiersInUse.withLock { $0.insert(identifier).inserted }
        guard claimed else {
            throw .managerUnavailable(
                "another DownloadManager with the identifier \"\(identifier)\" exists in this process; "
                    + "keep one manager per identifier")
        }
        do {
            try POSIXFile.createPrivateDirectory(directory)
            lockDescriptor = try Self.lock(directory)
        } catch {
            _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
            throw error
        }
        self.identifier = identifier
        self.directory = directory
        self.synchronizes = synchronizes
        self.beforeRename = beforeRename
    }

    deinit {
        release()
    }

    /// Gives the identifier and the store up: another manager may use them now. Records are no
    /// longer written or removed.
    func release() {
        let wasReleased = isReleased.withLock { released in
            defer { released = true }
            return released
        }
        guard !wasReleased else { return }
        POSIXFile.close(lockDescriptor)
        _ = Self.identifiersInUse.withLock { $0.remove(identifier) }
    }

    func fileURL(for id: Download.ID) -> URL {
        directory.appendingPathComponent("\(id.rawValue.uuidString).\(Self.recordExtension)")
    }

    func save(_ record: StoredDownload) throws(DownloadError) {
        guard !isReleased.value else { return }
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(record)
        } catch {
            throw .fileSystem(path: fileURL(for: record.id).path, reason: "cannot encode the record: \(error)")
        }
        try AtomicFile.write(data, to: fileURL(for: record.id), synchronize: synchronizes, beforeRename: beforeRename)
    }

    func remove(_ id: Download.ID) {
        guard !isReleased.value else { return }
        POSIXFile.remove(fileURL(for: id))
    }

    /// What the store held at launch.
    struct Contents: Sendable {
        var records: [StoredDownload] = []
        var issues: [DownloadManager.RestorationIssue] = []
    }

    /// Reads every record, oldest first. Records that cannot be used (damaged, truncated, or
    /// written by a newer version) are renamed aside and reported; temporary files left by a
    /// write that was interrupted are deleted.
    func load() -> Contents {
        var contents = Contents()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let decoder = JSONDecoder()
        for name in names {
            let file = directory.appendingPathComponent(name)
            if AtomicFile.isTemporary(name) {
                POSIXFile.remove(file)
                continue
            }
            guard file.pathExtension == Self.recordExtension else { continue }
            guard let data = try? Data(contentsOf: file) else {
                contents.issues.append(setAside(file, as: Self.corruptExtension, because: "it cannot be read"))
                continue
            }
            // The common case parses once; the version decides between damaged and newer.
            var record: StoredDownload?
            var damage = ""
            do {
                record = try decoder.decode(StoredDownload.self, from: data)
            } catch {
                damage = "\(error)"
            }
            let version = record?.version ?? (try? decoder.decode(VersionProbe.self, from: data))?.version
            if let version, version > StoredDownload.currentVersion {
                contents.issues.append(
                    setAside(
                        file, as: Self.unsupportedExtension,
                        because: "it was written by a newer version of Downstream (record version \(version))"))
                continue
            }
            guard let record else {
                contents.issues.append(setAside(file, as: Self.corruptExtension, because: "it is damaged: \(damage)"))
                continue
            }
            guard file.deletingPathExtension().lastPathComponent == record.id.rawValue.uuidString else {
                contents.issues.append(
                    setAside(file, as: Self.corruptExtension, because: "its name does not match its identifier"))
                continue
            }
            contents.records.append(record)
        }
        contents.records.sort { ($0.created, $0.id.rawValue.uuidString) < ($1.created, $1.id.rawValue.uuidString) }
        return contents
    }

    private func setAside(_ file: URL, as suffix: String, because reason: String) -> DownloadManager.RestorationIssue {
        let aside = file.appendingPathExtension(suffix)
        POSIXFile.remove(aside)
        let moved = rename(file.path, aside.path) == 0
        return DownloadManager.RestorationIssue(recordURL: moved ? aside : file, reason: reason)
    }

    private struct VersionProbe: Decodable {
        var version: Int
    }

    private static func lock(_ directory: URL) throws(DownloadError) -> Int32 {
        let lockFile = directory.appendingPathComponent(".lock")
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw POSIXFile.failure(lockFile, "cannot open the store's lock file")
        }
        // A child process forked (by anyone in this process) in the instant the lock was last
        // released holds a copy of it until it execs: give such a copy a moment to go.
        var attempts = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK, attempts < 20 {
            attempts += 1
            usleep(5_000)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure: DownloadError =
                errno == EWOULDBLOCK
                ? .managerUnavailable(
                    "the download store \(directory.path) is in use by another process (or another manager); "
                        + "give each manager its own identifier or store directory")
                : POSIXFile.failure(lockFile, "cannot lock the store")
            POSIXFile.close(descriptor)
            throw failure
        }
        return descriptor
    }
}
