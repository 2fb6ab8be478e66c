import Foundation

/// One download's record in the store: changed and written under one lock, so that the store
/// always ends with the latest change, whichever thread (the download's actor, or the session's
/// delegate queue for the engine's progress) made it. The record is in the store's journal until
/// it protects bytes, then in a file of its own (see ``DownloadStore``).
///
/// Writes are small and rare (a state change, a response, a checkpoint every few megabytes),
/// never per chunk, and only when the record changed.
///
/// In memory, a record that says nothing about bytes yet (a queued download's, whatever its
/// intent) is kept as its ``Origin`` and its intent, and made whole when read: a manager may hold
/// 100,000 queued downloads, and a whole record is twice the size.
final class DownloadRecordFile: Sendable {
    /// What a record that says nothing of bytes yet is made from, with its intent.
    enum Origin: Sendable {
        /// A new download's request, which has a URL: the record is made from it as it was at first
        /// (the request shares its storage with the download's own copy).
        case request(id: DownloadID, request: DownloadRequest, location: PartialLocation, created: Date)
        /// A restored record's parts.
        indirect case stored(Parts)

        /// The parts of a record that its download's request fixes.
        struct Parts: Sendable {
            var id: DownloadID
            var request: StoredDownload.Request
            var destination: StoredDownload.StoredDestination
            var partialPath: String
            var created: Date
        }

        /// The origin of `record`, if the rest of it is what a new record has.
        init?(_ record: StoredDownload) {
            guard Self.isNew(record) else { return nil }
            self = .stored(
                Parts(
                    id: record.id, request: record.request, destination: record.destination,
                    partialPath: record.partialPath, created: record.created))
        }

        /// `request` as the origin of `record` (read back from the store), if it makes the same
        /// record again: the request is then the download's own, and the record needs no copy.
        static func request(
            _ request: DownloadRequest, remaking record: StoredDownload, location: PartialLocation
        ) -> Origin? {
            guard isNew(record) else { return nil }
            let origin = Origin.request(id: record.id, request: request, location: location, created: record.created)
            // With the record's URL: the request's may be its text, made from it.
            return origin.record(intent: record.intent, url: record.request.url) == record ? origin : nil
        }

        /// Whether `record` says nothing but what its request and intent say.
        static func isNew(_ record: StoredDownload) -> Bool {
            record.version == StoredDownload.currentVersion && record.systemResumeData == nil && record.handoff == nil
                && record.sources == nil && record.history == nil
                && record.resume == .startingOver(url: record.request.url)
        }

        var id: DownloadID {
            switch self {
            case .request(let id, _, _, _): id
            case .stored(let parts): parts.id
            }
        }

        /// The URL the request asks for.
        var url: URL {
            switch self {
            // A request without a URL is never downloaded, and has no record.
            case .request(_, let request, _, _): request.url!
            case .stored(let parts): parts.request.url
            }
        }

        /// - Parameter url: the request's URL, if the caller has it (a request restored from a
        ///   store parses its URL's text when asked for it).
        func record(intent: StoredDownload.Intent, url: URL? = nil) -> StoredDownload {
            switch self {
            case .request(let id, let request, let location, let created):
                var record = StoredDownload(
                    id: id, request: request, url: url ?? self.url, location: location, created: created)
                record.intent = intent
                return record
            case .stored(let parts):
                return StoredDownload(
                    id: parts.id, request: parts.request, destination: parts.destination,
                    partialPath: parts.partialPath, intent: intent, resume: .startingOver(url: parts.request.url),
                    created: parts.created)
            }
        }
    }

    /// A whole record, in memory once it says more than its origin does.
    private final class Whole: Sendable {
        let record: StoredDownload

        init(_ record: StoredDownload) {
            self.record = record
        }
    }

    /// (The one-byte members last: 100,000 downloads may be queued.)
    private struct State {
        /// Nil while the record is its origin's with `intent`.
        var whole: Whole?
        /// Where the latest copy is.
        var place: RecordPlace
        /// The download's history, with the entries not written yet (see ``noteHistory(_:writesNow:)``).
        var history: DownloadHistory?
        var intent: StoredDownload.Intent
        var isRemoved = false
        /// Whether ``history`` has entries the latest copy lacks.
        var historyIsPending = false
    }

    private let store: DownloadStore
    private let origin: Origin?
    /// Read and written only in ``withState(_:)``, under the record's lock of
    /// ``SharedLocks/records``.
    // Safe: only touched in `withState`, which holds the lock.
    private nonisolated(unsafe) var state: State

    /// A record whose latest copy is at `place`.
    /// - Parameter origin: what `record` was made from, when it was made from a new download's
    ///   request; by default, its own parts.
    init(store: DownloadStore, record: StoredDownload, place: RecordPlace, origin: Origin? = nil) {
        self.store = store
        let origin = Origin.isNew(record) ? origin ?? Origin(record) : nil
        assert(origin.map { $0.record(intent: record.intent) == record } ?? true, "the origin makes another record")
        self.origin = origin
        self.state = State(
            whole: origin == nil ? Whole(record) : nil, place: place, history: record.history, intent: record.intent)
    }

    /// Runs `body` on the state, holding its lock. The store's calls in it take the store's
    /// own lock, never one of ``SharedLocks/records`` (another record's may be the same).
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        SharedLocks.records.withLock(for: self) { body(&state) }
    }

    var record: StoredDownload {
        withState { record(of: $0) }
    }

    /// The record's resume record, without making a whole record of an origin.
    var resume: ResumeRecord {
        // An origin's record starts over.
        sourcesAndResume?.resume ?? .startingOver(url: origin!.url)
    }

    /// The record's resume record; for a record that is still its origin's (it starts over), one
    /// for `url`, which the caller parsed already (a request may keep its URL as text, and a
    /// running download reads its record several times).
    func resume(startingOverFrom url: URL) -> ResumeRecord {
        sourcesAndResume?.resume ?? .startingOver(url: url)
    }

    /// The record's sources and resume record; nil while the record is its origin's (no sources,
    /// no bytes: it starts over). Makes no whole record, and parses no URL.
    var sourcesAndResume: (sources: SourceList?, resume: ResumeRecord)? {
        withState { state in state.whole.map { ($0.record.sources, $0.record.resume) } }
    }

    /// Whether the record keeps a system task's resume data, without making a whole record of an
    /// origin (which has none).
    var hasSystemResumeData: Bool {
        withState { $0.whole?.record.systemResumeData != nil }
    }

    private func record(of state: State) -> StoredDownload {
        if let whole = state.whole { return whole.record }
        // A record without a whole copy has an origin.
        return origin!.record(intent: state.intent)
    }

    /// Changes the record and writes it, if the change changed anything, with the history's
    /// entries not written yet. Does nothing once the record was removed.
    /// - Parameter writingHistory: true to write the record when only its history changed.
    func update(writingHistory: Bool = false, _ change: (inout StoredDownload) -> Void) throws(DownloadError) {
        let failure: DownloadError? = withState { state in
            guard !state.isRemoved else { return nil }
            let before = record(of: state)
            var after = before
            change(&after)
            guard after != before || (writingHistory && state.historyIsPending) else { return nil }
            if state.historyIsPending {
                after.history = state.history
            }
            do throws(DownloadError) {
                state.place = try store.update(after, at: state.place)
            } catch {
                // What is in memory stays what is on disk, so that the same change is tried again.
                return error
            }
            state.historyIsPending = false
            var sameButIntent = after
            sameButIntent.intent = before.intent
            if state.whole == nil, sameButIntent == before {
                state.intent = after.intent
            } else {
                state.whole = Whole(after)
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Sets the record's intent and writes it, if it changed. A record that is its origin's is
    /// made whole only to be written: a download that starts as it was queued changes nothing.
    func update(intent: StoredDownload.Intent) throws(DownloadError) {
        let isUnchanged = withState { $0.whole == nil && !$0.isRemoved && $0.intent == intent && !$0.historyIsPending }
        guard !isUnchanged else { return }
        try update(writingHistory: true) { $0.intent = intent }
    }

    /// The download's last events, those not written yet included.
    var history: [DownloadHistoryEntry] {
        withState { $0.history?.entries ?? [] }
    }

    /// Adds `entry` to the history, and writes the record now when `writesNow` (an event that
    /// matters: a retry, a new URL, an error), else with its next write (a checkpoint, a change
    /// of state): requests and answers make no write of their own. Nothing once the record was
    /// removed.
    func noteHistory(_ entry: DownloadHistoryEntry, writesNow: Bool = false) {
        let noted = withState { state -> Bool in
            guard !state.isRemoved else { return false }
            state.history = state.history ?? DownloadHistory()
            state.history?.append(entry)
            state.historyIsPending = true
            return true
        }
        guard noted, writesNow else { return }
        // As any write of the record: one that fails leaves the entries for the next.
        try? update(writingHistory: true) { _ in }
    }

    /// Deletes the record; later updates do nothing.
    func remove() {
        withState { state in
            // Once: the journal counts a removal's frame against the live ones.
            guard !state.isRemoved else { return }
            state.isRemoved = true
            store.remove(origin?.id ?? record(of: state).id, from: state.place)
        }
    }
}
