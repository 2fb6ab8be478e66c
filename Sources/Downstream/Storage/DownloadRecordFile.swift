/// One download's record in the store: changed and written under one lock, so that the store
/// always ends with the latest change, whichever thread (the download's actor, or the session's
/// delegate queue for the engine's progress) made it. The record is in the store's journal until
/// it protects bytes, then in a file of its own (see ``DownloadStore``).
///
/// Writes are small and rare (a state change, a response, a checkpoint every few megabytes),
/// never per chunk, and only when the record changed.
final class DownloadRecordFile: Sendable {
    private struct State {
        var record: StoredDownload
        /// Where the latest copy is.
        var place: RecordPlace
        var isRemoved = false
    }

    private let store: DownloadStore
    private let state: Locked<State>

    /// A record whose latest copy is at `place`.
    init(store: DownloadStore, record: StoredDownload, place: RecordPlace) {
        self.store = store
        self.state = Locked(State(record: record, place: place))
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
                state.place = try store.update(state.record, at: state.place)
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
            store.remove(state.record.id, from: state.place)
        }
    }
}
