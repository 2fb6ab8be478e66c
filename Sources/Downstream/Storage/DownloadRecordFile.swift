/// One download's record in the store: changed and written under one lock, so that the file
/// always ends with the latest change, whichever thread (the download's actor, or the session's
/// delegate queue for the engine's progress) made it.
///
/// Writes are small and rare (a state change, a response, a checkpoint every few megabytes),
/// never per chunk.
final class DownloadRecordFile: Sendable {
    private struct State {
        var record: StoredDownload
        var isRemoved = false
    }

    private let store: DownloadStore
    private let state: Locked<State>

    init(store: DownloadStore, record: StoredDownload) {
        self.store = store
        self.state = Locked(State(record: record))
    }

    var record: StoredDownload {
        state.withLock { $0.record }
    }

    /// Changes the record and writes it. Does nothing once the record was removed.
    func update(_ change: (inout StoredDownload) -> Void) throws(DownloadError) {
        let failure: DownloadError? = state.withLock { state in
            guard !state.isRemoved else { return nil }
            change(&state.record)
            do throws(DownloadError) {
                try store.save(state.record)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Deletes the record; later updates do nothing.
    func remove() {
        state.withLock { state in
            state.isRemoved = true
            store.remove(state.record.id)
        }
    }
}
