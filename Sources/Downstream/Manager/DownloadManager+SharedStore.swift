import Foundation

extension DownloadManager {
    /// The unfinished download (queued, running, paused or failed) of this manager whose
    /// destination is the file `file`, if there is one: started in this process, restored from
    /// the store, or, in a store shared by processes
    /// (``Configuration-swift.struct/Storage-swift.struct/isSharedByProcesses``), taken from the
    /// store now; its place is then this manager's until it ends.
    ///
    /// Use it to look at what an earlier run left for a file before asking for it again: to
    /// give it a fresh URL (``Download/setURL(_:)``) or to cancel it.
    ///
    /// - Throws: ``DownloadError/Kind/destinationInUse`` if a manager of another process (or
    ///   another manager of this one) sharing the store has the file.
    public func unfinishedDownload(to file: URL) throws(DownloadError) -> Download? {
        let path = file.path
        if let own = ownUnfinishedDownload(to: path) { return own }
        guard let claims = store.claims else { return nil }
        // Claimed even without a stored record, so that a place another manager has says so.
        let claim = try takePlace(path, claims)
        // No download was taken (none stored, or one that held nothing to go on with): the
        // place is free again.
        claim?.release()
        return ownUnfinishedDownload(to: path)
    }

    private func ownUnfinishedDownload(to path: String) -> Download? {
        if configuration.storage.partialsDirectory == nil {
            // Beside its file: no need to look through every download.
            let location = PartialLocation(
                url: PartialLocation.noURL, destination: .file(URL(fileURLWithPath: path)), partialsDirectory: nil)
            guard let download = byLocation[location], download.canBeJoined else { return nil }
            return download
        }
        return byLocation.values.first { $0.request.destination.fileURL?.path == path && $0.canBeJoined }
    }

    /// In a store shared by processes: holds `place` for this manager, and takes the stored
    /// download of it, if another process left one, into the manager's downloads (repaired as
    /// a restoration repairs it). Returns the claim for a new download; nil when a download
    /// taken from the store holds it.
    func takePlace(_ place: String, _ claims: StoreClaims) throws(DownloadError) -> PlaceClaim? {
        let claim = try claims.claim(place)
        // Read now, not at launch: the process that had it may have changed it since.
        guard let id = stored.removeValue(forKey: place), let loaded = store.loadRecord(id) else { return claim }
        var directories: [StoredDownload.StoredDestination: Destination] = [:]
        switch Restoration.restore(loaded, store: store, context: context, placeClaim: claim, directories: &directories)
        {
        case .gone:
            return claim
        case .kept(let record):
            kept[record.location] = record
            return claim
        case .download(let download, _):
            hold(download)
            observe(download)
            return nil
        }
    }

    /// The place a download writes to, which one manager of a shared store has at a time: its
    /// destination file; for a destination named by the response, or a download kept separate
    /// from others of its file, its partial file.
    static func place(of request: DownloadRequest, at location: PartialLocation, isSeparate: Bool = false) -> String {
        guard !isSeparate, let file = request.destination.fileURL else { return location.path }
        return file.path
    }
}
