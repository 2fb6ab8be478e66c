import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadManager {
    /// Downloads `url` (a `GET`) to `destination`.
    ///
    /// If this manager already has an unfinished download of the same URL to the same
    /// destination (started in this process or restored from the store; the URL it was asked for,
    /// or the one it uses now, see ``Download/url``), that download is returned, and resumed if it
    /// was paused or failed; an unfinished download of another URL to
    /// the same file makes this one fail with ``DownloadError/Kind/invalidRequest``. If an earlier
    /// download of the same URL to the same destination was cancelled with its data kept, the new
    /// download continues from that data.
    @discardableResult
    public func download(from url: URL, to destination: Destination) async -> Download {
        await download(DownloadRequest(url: url, to: destination))
    }

    /// Downloads what `request` describes; see ``download(from:to:)``.
    ///
    /// A request that cannot be downloaded (not HTTP or HTTPS, not `GET`) gives a download that
    /// fails with ``DownloadError/Kind/invalidRequest``.
    ///
    /// - Parameters:
    ///   - request: what to download, and where to.
    ///   - startsPaused: whether the download waits, paused, for ``Download/resume()`` instead
    ///     of starting. It is stored either way.
    @discardableResult
    public func download(_ request: DownloadRequest, startsPaused: Bool = false) async -> Download {
        await download(request, startsPaused: startsPaused, inGroup: 0)
    }

    /// Downloads what `request` describes, in group `group` (0: none) of the scheduler's; see
    /// ``download(_:startsPaused:)``.
    func download(_ request: DownloadRequest, startsPaused: Bool, inGroup group: Int) async -> Download {
        // Parsed once: a request may keep its URL as text (see ``DownloadRequest/init(url:to:)``).
        let url = request.url
        var requestError =
            isInvalidated
            ? .managerUnavailable("the manager was invalidated")
            : headerProblem.map { .invalidRequest($0) } ?? Self.validate(request, url: url)
        if requestError == nil,
            let problem = configuration.network.unappliedSettings(
                on: connectionEngines, host: url?.host, trust: configuration.trust)
        {
            requestError = .invalidRequest(problem)
        }
        let id = Download.ID()
        let isSeparate = request.duplicates == .startSeparately
        let destinationPath = request.destination.path(through: &lastDestinationPath)
        let location = PartialLocation(
            url: url ?? PartialLocation.noURL, destination: request.destination,
            destinationPath: destinationPath, partialsDirectory: configuration.storage.partialsDirectory,
            separateFrom: isSeparate ? id : nil)

        // Looked up once: hashing a location's path is a good part of what queueing costs.
        let existing = byLocation[location]
        var placeClaim: PlaceClaim?
        if requestError == nil, let claims = store.claims, isSeparate || existing?.canBeJoined != true {
            do {
                placeClaim = try takePlace(Self.place(of: request, at: location, isSeparate: isSeparate), claims)
            } catch {
                requestError = error
            }
        }
        if requestError == nil, !isSeparate, let existing, existing.canBeJoined {
            if let url, existing.request.url == url || existing.url == url {
                if request.checks.isEmpty || existing.acceptsChecks {
                    existing.addChecks(request.checks)
                    if group != 0, !scheduler.isQueued(existing.id), !scheduler.isRunning(existing.id) {
                        // Not in the queue: it joins the group when it queues again.
                        groupScheduling.add(existing.id, to: group)
                    }
                    if !startsPaused { await existing.resume() }
                    return existing
                }
                // Its checks could come after the file was delivered: refused, never skipped.
                requestError = .invalidRequest(
                    "the request joins the download of \(location.path), which is \(existing.state): its checks "
                        + "could come after the file was delivered; give them to the first request, or start this "
                        + "one separately (duplicates = .startSeparately)")
            } else {
                // Another URL to the same file: both would write the same partial file.
                requestError = .invalidRequest(
                    "\(location.path) is in use by the download of \(existing.request.url.map(LogText.url) ?? "?")"
                )
            }
        }

        var recordFile: DownloadRecordFile?
        if requestError == nil, let url {
            do {
                recordFile = try makeRecord(
                    id: id, request: request, url: url, location: location, destinationPath: destinationPath,
                    replacing: existing, startsPaused: startsPaused)
            } catch {
                requestError = error
            }
        }
        if requestError != nil {
            placeClaim?.release()
            placeClaim = nil
        }
        let download = Download(
            id: id, request: request, location: location, context: context, recordFile: recordFile,
            requestError: requestError, placeClaim: placeClaim, startsPaused: startsPaused)
        if recordFile != nil {
            systemRouter?.register(download)
        }
        observe(download)
        if group != 0 {
            groupScheduling.add(id, to: group)
        }
        ordered.append(download)
        byID[download.id] = download
        if requestError == nil {
            byLocation[location] = download
        }
        if !startsPaused {
            // Started at once if a slot is free, before this returns.
            let granted = schedule(
                download, need: .waiting, priority: request.priority, host: url.map(Self.schedulingHost))
            if granted.contains(download.id) {
                await download.start()
            }
            start(granted.filter { $0 != download.id })
        }
        return download
    }

    /// Downloads `url` to `destination` and returns the file, tied to the calling task.
    ///
    /// Cancelling the calling task cancels the download but keeps the bytes received, so that a
    /// later download of the same URL to the same destination continues from them; this then
    /// throws ``DownloadError/Kind/cancelled``.
    public func downloadFile(from url: URL, to destination: Destination) async throws -> URL {
        try await downloadFile(DownloadRequest(url: url, to: destination))
    }

    /// Downloads what `request` describes and returns the file; see ``downloadFile(from:to:)``.
    public func downloadFile(_ request: DownloadRequest) async throws -> URL {
        let download = await download(request)
        let outcome = await withTaskCancellationHandler {
            await download.outcome()
        } onCancel: {
            Task { await download.cancel(keepingPartialData: true) }
        }
        return try outcome.get()
    }

    /// Writes the record of a new download, continuing from the data of a cancelled download of
    /// the same URL to the same place if one was kept (in this process by `earlier`, the
    /// download the location had).
    private func makeRecord(
        id: Download.ID, request: DownloadRequest, url: URL, location: PartialLocation, destinationPath: String,
        replacing earlier: Download?, startsPaused: Bool
    ) throws(DownloadError) -> DownloadRecordFile {
        var record = StoredDownload(
            id: id, request: request, url: url, location: location, destinationPath: destinationPath)
        record.intent = startsPaused ? .paused : .active
        let keptRecord = (kept.isEmpty ? nil : kept.removeValue(forKey: location)) ?? earlier?.recordFile?.record
        if let keptRecord, keptRecord.intent == .kept, keptRecord.request.url == url {
            record.resume = keptRecord.resume
            record.systemResumeData = keptRecord.systemResumeData
            record.sources = keptRecord.sources
        }
        let place = try store.create(record)
        if let keptRecord, keptRecord.intent == .kept {
            // Saved first: a process killed in between still has one record for the data.
            store.remove(keptRecord.id)
        }
        return DownloadRecordFile(
            store: store, record: record, place: place,
            origin: .request(id: id, request: request, location: location, created: record.created))
    }

    /// - Parameter url: the request's URL.
    private static func validate(_ request: DownloadRequest, url: URL?) -> DownloadError? {
        guard let url else { return .invalidRequest("the request has no URL") }
        if let problem = DownloadRequest.problem(with: url) { return .invalidRequest(problem) }
        for mirror in request.mirrors {
            if let problem = DownloadRequest.problem(with: mirror) { return .invalidRequest(problem) }
        }
        let method = request.httpMethod
        guard method == "GET" else {
            return .invalidRequest("only GET requests can be resumed, not \(method)")
        }
        if case .file(let file) = request.destination.location, file.hasDirectoryPath {
            return .invalidRequest("the destination file \(file.path) is a directory path")
        }
        if let problem = request.expectedDigest?.problem {
            return .invalidRequest(problem)
        }
        if let problem = HeaderField.problem(in: request.headerFields) {
            return .invalidRequest(problem)
        }
        return nil
    }
}
