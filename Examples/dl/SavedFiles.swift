import Foundation

/// The files earlier runs of `dl` saved, in its store (`saved.json`): a rerun of the same
/// command finds a file it saved still there, unchanged, and counts it as saved instead of
/// failing on a file that exists ("Ctrl-C, then the same command" continues, whatever was saved
/// before). Only a file that is exactly the one dl saved (same URL, size, modification time and
/// file number) counts; anything else at the path is the user's, and the usual rules apply.
struct SavedFiles {
    struct Entry: Codable, Equatable {
        var url: URL
        var state: FileState
    }

    private let file: URL
    /// By path.
    private var entries: [String: Entry]
    /// Whether ``entries`` changed since they were last written.
    private var isChanged = false

    /// The files saved by earlier runs whose store is `storeDirectory`; those no longer there as
    /// they were saved are forgotten.
    init(storeDirectory: URL) {
        file = storeDirectory.appendingPathComponent("saved.json", isDirectory: false)
        let stored = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode([String: Entry].self, from: $0) }
        entries = (stored ?? [:]).filter { path, entry in
            FileState(at: URL(fileURLWithPath: path)) == entry.state
        }
    }

    /// Whether `url`'s file at `file`, found as `state`, is the one an earlier run saved,
    /// unchanged.
    func savedEarlier(_ url: URL, at file: URL, state: FileState?) -> Bool {
        guard let entry = entries[file.path], let state else { return false }
        return entry.url == url && entry.state == state
    }

    /// Remembers that `url` was saved at `file`; ``save()`` writes it.
    mutating func remember(_ url: URL, savedAt file: URL) {
        guard let state = FileState(at: file) else { return }
        entries[file.path] = Entry(url: url, state: state)
        isChanged = true
    }

    /// Writes the list if it changed (a list that cannot be written only costs a download next
    /// time): every so often while files are saved, and at the end of the run, so that a run of
    /// many small files does not write it once per file.
    mutating func save() {
        guard isChanged, let data = try? JSONEncoder().encode(entries) else { return }
        try? data.write(to: self.file, options: .atomic)
        isChanged = false
    }
}
