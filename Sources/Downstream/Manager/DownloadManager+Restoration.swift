import Foundation

extension DownloadManager {
    /// The directory of the manager's store: its records, and whatever else an app keeps beside
    /// them for the same downloads (``Configuration-swift.struct/Storage-swift.struct/directory``,
    /// or the default for its identifier).
    public nonisolated var storeDirectory: URL {
        store.directory
    }

    /// A stored record that could not be restored.
    public typealias RestorationIssue = Downstream.RestorationIssue

    /// The downloads rebuilt from the store at launch, after repairing what a process that died
    /// at any instant can leave behind.
    struct Restoration {
        var downloads: [Download] = []
        /// The restored downloads that were running when the process ended.
        var interrupted: [Download] = []
        var kept: [PartialLocation: StoredDownload] = [:]
        var issues: [RestorationIssue] = []

        /// Nothing restored: a store shared by processes, whose downloads are taken when asked for.
        init(issues: [RestorationIssue]) {
            self.issues = issues
        }

        /// - Parameter partialsDirectory: the manager's own directory of partial files, if it has
        ///   one: partial files there that no record knows are deleted.
        init(
            store: DownloadStore, context: Download.Context, partialsDirectory: URL?
        ) {
            defer {
                if let partialsDirectory {
                    removeUnknownPartials(in: partialsDirectory)
                }
            }
            // One record at a time, straight into its download: the records are not all in
            // memory at once (100,000 would be 100 MB).
            var restored: [(created: Date, download: Download, wasInterrupted: Bool)] = []
            // One value (and URL) per directory, not one per download.
            var directories: [StoredDownload.StoredDestination: Destination] = [:]
            issues = store.load { loaded in
                switch Self.restore(loaded, store: store, context: context, directories: &directories) {
                case .gone:
                    break
                case .kept(let record):
                    kept[record.location] = record
                case .download(let download, let wasInterrupted):
                    restored.append((loaded.record.created, download, wasInterrupted))
                }
            }
            // Oldest first, as they were made.
            restored.sort {
                // The identifiers' text only for equal dates: a tuple would make it for every
                // comparison.
                $0.created != $1.created
                    ? $0.created < $1.created : $0.download.id.rawValue.uuidString < $1.download.id.rawValue.uuidString
            }
            downloads = restored.map(\.download)
            interrupted = restored.filter(\.wasInterrupted).map(\.download)
        }

        /// What a stored record comes to.
        enum Restored {
            /// Nothing is left to do: the record was removed.
            case gone
            /// Data kept by a cancel, for a new download of the same URL to the same place.
            case kept(StoredDownload)
            /// A download, paused; `interrupted` if it was running when its process ended.
            case download(Download, interrupted: Bool)
        }

        /// Makes `loaded` a download again, after repairing what a process that died at any
        /// instant can leave behind.
        /// - Parameter placeClaim: in a store shared by processes, the place of the record, which
        ///   the caller holds.
        /// - Parameter directories: the directory destinations made so far, to reuse.
        static func restore(
            _ loaded: DownloadStore.LoadedRecord, store: DownloadStore, context: Download.Context,
            placeClaim: PlaceClaim? = nil, directories: inout [StoredDownload.StoredDestination: Destination]
        ) -> Restored {
            var record = loaded.record
            var place = loaded.place
            let location = record.location
            // Read only where it decides something: most restored downloads have no bytes yet.
            let hasPartial = { POSIXFile.length(atPath: location.path) != nil }
            switch record.intent {
            case .cancelled:
                // A cancellation that did not finish: finish it.
                POSIXFile.removeOwnFile(atPath: location.path)
                store.remove(record.id, from: place)
                return .gone
            case .kept:
                // The bytes are in the partial file, or with the system (its resume data).
                guard record.systemResumeData != nil || hasPartial() else {
                    store.remove(record.id, from: place)
                    return .gone
                }
                return .kept(record)
            case .active, .paused, .failed:
                break
            }
            if record.resume.isResumable, record.resume.durableLength > 0, !hasPartial() {
                if record.resume.durableLength == record.resume.expectedLength {
                    // Every byte was received and the partial file is gone: it was delivered,
                    // and the process ended before the record was removed.
                    store.remove(record.id, from: place)
                    return .gone
                }
                // The bytes are gone: start again from the first.
                record.resume = .startingOver(url: record.request.url)
                place = (try? store.update(record, at: place)) ?? place
            }
            let request = record.downloadRequest(to: destination(record.destination, reusing: &directories))
            let download = Download(
                id: record.id, request: request, location: location, context: context,
                recordFile: DownloadRecordFile(
                    store: store, record: record, place: place,
                    origin: .request(request, remaking: record, location: location)),
                requestError: nil, placeClaim: placeClaim,
                startsPaused: true)
            context.engines.system?.router.register(download)
            return .download(download, interrupted: record.intent == .active)
        }

        /// The value of `stored`: for a directory, the one made for an earlier record if there is
        /// one (one value and URL per directory, not one per download).
        private static func destination(
            _ stored: StoredDownload.StoredDestination,
            reusing directories: inout [StoredDownload.StoredDestination: Destination]
        ) -> Destination {
            guard stored.isDirectory else { return stored.value }
            if let made = directories[stored] { return made }
            let made = stored.value
            directories[stored] = made
            return made
        }

        /// Deletes the partial files in `directory` that belong to no restored download and to no
        /// kept data: left by a download whose record was lost.
        private func removeUnknownPartials(in directory: URL) {
            let known = Set(downloads.map(\.location.path) + kept.keys.map(\.path))
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names where name.hasSuffix(".\(PartialLocation.partialExtension)") {
                let file = directory.appendingPathComponent(name, isDirectory: false)
                if !known.contains(file.path) {
                    POSIXFile.removeOwnFile(atPath: file.path)
                }
            }
        }
    }
}
