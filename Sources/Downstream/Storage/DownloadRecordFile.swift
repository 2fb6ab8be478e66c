/// One download's record in the store: changed and written under one lock, so that the file
/// always ends with the latest change, whichever thread (the download's actor, or the session's
/// delegate queue for the engine's progress) made it.
///
/// Writes are small and rare (a state change, a response, a checkpoint every few megabytes),
/// never per chunk, and only when the record changed.
final class DownloadRecordFile: Sendable {
    private struct State {
        var record: StoredDownload
        /// Where the latest copy is in the file.
        var position: RecordSlots.Position
        var isRemoved = false
    }

    private let store: DownloadStore
    private let state: Locked<State>

    /// A record whose latest copy is at `position` in its file.
    init(store: DownloadStore, record: StoredDownload, position: RecordSlots.Position) {
        self.store = store
        self.state = Locked(State(record: record, position: position))
    }

    var record: StoredDownload {
        state.withLock { $0.record }
    }

    /// Changes the record and writes it, if the change changed anything. Does nothing once the
    /// record was removed.
    func update(_ change: (inout StoredDownload) -> Void) throws(DownloadError) {
        let failure: DownloadError? = state.withLock { state in
            guard !state.isRemoved else { return nil }
            let before = state.record
            change(&state.record)
            guard state.record != before else { return nil }
            do throws(DownloadError) {
                state.position = try store.update(state.record, after: state.position)
                return nil
            } catch {
                // What is in memory stays what is on disk, so that the same change is tried again.
                state.record = before
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
