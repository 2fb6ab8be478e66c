import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files earlier runs of `dl` saved, in its store (`saved.json`): a rerun of the same
/// command finds a file it saved still there, unchanged, and counts it as saved instead of
/// failing on a file that exists ("Ctrl-C, then the same command" continues, whatever was saved
/// before). Only a file that is exactly the one dl saved (same URL, size, modification time and
/// file number) counts; anything else at the path is the user's, and the usual rules apply.
/// Several dl processes share the list: each writes only its own changes into what the list
/// holds when it writes, under a lock (`saved.lock`). The list is readable by its owner only, and
/// keeps no URL: a URL's SHA-256 says whether a rerun asks for the same one, and no password or
/// token in a URL is written down.
struct SavedFiles {
    struct Entry: Codable, Equatable {
        /// The SHA-256 of the URL's text.
        var urlKey: String
        var state: FileState

        init(url: URL, state: FileState) {
            urlKey = Self.key(url)
            self.state = state
        }

        func isOf(_ url: URL) -> Bool {
            urlKey == Self.key(url)
        }

        static func key(_ url: URL) -> String {
            Digest(.sha256, of: Array(url.absoluteString.utf8)).hexValue
        }
    }

    private let file: URL
    private let lockPath: String
    /// By path.
    private var entries: [String: Entry]
    /// The entries this run added since the list was last written.
    private var added: [String: Entry] = [:]

    /// The files saved by earlier runs whose store is `storeDirectory`; those no longer there as
    /// they were saved are forgotten.
    init(storeDirectory: URL) {
        file = storeDirectory.appendingPathComponent("saved.json", isDirectory: false)
        lockPath = storeDirectory.appendingPathComponent("saved.lock", isDirectory: false).path
        entries = Self.read(file)
    }

    /// Writes `data` into a new file readable by its owner only, then moves it over `file`.
    private static func writePrivately(_ data: Data, to file: URL) {
        let temporary = file.path + ".\(getpid()).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written == data.count {
            rename(temporary, file.path)
        } else {
            unlink(temporary)
        }
    }

    /// The list in `file`, without the files no longer there as they were saved.
    private static func read(_ file: URL) -> [String: Entry] {
        let stored = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode([String: Entry].self, from: $0) }
        return (stored ?? [:]).filter { path, entry in
            FileState(at: URL(fileURLWithPath: path)) == entry.state
        }
    }

    /// Whether `url`'s file at `file`, found as `state`, is the one an earlier run saved,
    /// unchanged.
    func savedEarlier(_ url: URL, at file: URL, state: FileState?) -> Bool {
        guard let entry = entries[file.path], let state else { return false }
        return entry.isOf(url) && entry.state == state
    }

    /// Where an earlier run saved `url` under the name its server gave (`--content-disposition`),
    /// if that file is still as it was saved.
    func savedFile(of url: URL, in folder: URL) -> URL? {
        let path = entries.first { path, entry in
            entry.isOf(url) && URL(fileURLWithPath: path).deletingLastPathComponent().path == folder.path
        }?.key
        return path.map { URL(fileURLWithPath: $0, isDirectory: false) }
    }

    /// Remembers that `url` was saved at `file`; ``save()`` writes it.
    mutating func remember(_ url: URL, savedAt file: URL) {
        guard let state = FileState(at: file) else { return }
        entries[file.path] = Entry(url: url, state: state)
        added[file.path] = entries[file.path]
    }

    /// Writes the list if it changed (a list that cannot be written only costs a download next
    /// time): every so often while files are saved, and at the end of the run, so that a run of
    /// many small files does not write it once per file.
    mutating func save() {
        guard !added.isEmpty else { return }
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { if lock >= 0 { close(lock) } }
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        // What other dl processes wrote since, with this run's files.
        var current = Self.read(file)
        current.merge(added) { _, own in own }
        guard let data = try? JSONEncoder().encode(current) else { return }
        Self.writePrivately(data, to: file)
        added = [:]
    }
}
