import Foundation

/// A file the manager delivered for a download that downloads again only when the server's file
/// changed: the server's validators of that version, and the size and modification time of the
/// copy, so that a copy changed since (by the user, or another program) is not taken for it.
struct DeliveredCopy: Codable, Equatable, Sendable {
    var path: String
    var url: URL
    var validator: Validator
    var size: Int64
    var modified: Date

    /// The copy at `path` as it is now, described with `validator`; nil if there is no file.
    init?(path: String, url: URL, validator: Validator) {
        guard let (size, modified) = Self.fileState(atPath: path) else { return nil }
        self.path = path
        self.url = url
        self.validator = validator
        self.size = size
        self.modified = modified
    }

    /// Whether the file at ``path`` is still the copy described.
    var isUnchanged: Bool {
        guard let (size, modified) = Self.fileState(atPath: path) else { return false }
        return size == self.size && modified == self.modified
    }

    static func fileState(atPath path: String) -> (size: Int64, modified: Date)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return (size, modified)
    }
}

/// The delivered copies of a manager, one small file each in a directory of its store, by
/// destination path: written when such a download delivers its file, read when the next one
/// for the same destination starts (in this process or after a relaunch). Paths are stored as
/// records store them (see ``PathBases``): a copy is found again after its directory moved.
final class DeliveredCopies: Sendable {
    let directory: URL
    let bases: PathBases?

    init(directory: URL, bases: PathBases? = nil) {
        self.directory = directory
        self.bases = bases
    }

    /// The copy delivered at `path`, if it is still there as it was delivered.
    func copy(at path: String) -> DeliveredCopy? {
        // As stored now, else as versions before relocatable paths stored it (absolute).
        let current = stored(path)
        for stored in current == path ? [path] : [current, path] {
            guard let data = try? POSIXFile.readTrusted(atPath: file(for: stored).path),
                var copy = try? JSONDecoder().decode(DeliveredCopy.self, from: data), copy.path == stored
            else { continue }
            copy.path = path
            return copy.isUnchanged ? copy : nil
        }
        return nil
    }

    /// Remembers `copy`, replacing what was known of its path. A copy that cannot be remembered
    /// only costs a full download next time.
    func remember(_ copy: DeliveredCopy) {
        var stored = copy
        stored.path = self.stored(copy.path)
        guard let data = try? JSONEncoder().encode(stored) else { return }
        try? POSIXFile.createPrivateDirectory(directory)
        try? AtomicFile.write(data, to: file(for: stored.path))
    }

    private func stored(_ path: String) -> String {
        bases?.stored(path) ?? path
    }

    private func file(for storedPath: String) -> URL {
        directory.appendingPathComponent("\(StableHash.hex(storedPath)).json", isDirectory: false)
    }
}
