import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Starts downloads and holds them: the entry point of Downstream.
///
/// A manager owns one URLSession and its delegate; each download it starts is a ``Download``
/// actor with its own progress and events.
///
/// ```swift
/// let manager = DownloadManager(configuration: .init(identifier: "com.example.app"))
/// let download = await manager.download(from: url, to: .directory(downloads))
/// let file = try await download.fileURL
/// ```
public actor DownloadManager {
    /// The configuration the manager was made with.
    public nonisolated let configuration: Configuration

    private let session: TransferSession
    private let settings: Download.Settings
    private var ordered: [Download] = []
    private var byID: [Download.ID: Download] = [:]
    private var byLocation: [PartialLocation: Download] = [:]

    /// Creates a manager and its URL session.
    public init(configuration: Configuration) {
        self.configuration = configuration
        settings = configuration.makeDownloadSettings()
        session = TransferSession(
            identifier: configuration.identifier, configuration: configuration.makeURLSessionConfiguration(),
            pendingCallbackLimit: configuration.pendingCallbackLimit)
    }

    // MARK: - Starting downloads

    /// Downloads `url` (a `GET`) to `destination`.
    ///
    /// If this manager already has an unfinished download of the same URL to the same
    /// destination, that download is returned (and resumed if it was paused or failed); an
    /// unfinished download of another URL to the same file makes this one fail with
    /// ``DownloadError/Kind/invalidRequest``. If a
    /// partial file of an earlier download of the same URL to the same destination is on disk
    /// (cancelled with ``Download/cancel(keepingPartialData:)``, interrupted, or left by another
    /// run of the app), the new download continues from it.
    @discardableResult
    public func download(from url: URL, to destination: Destination) async -> Download {
        await download(DownloadRequest(url: url, to: destination))
    }

    /// Downloads what `request` describes; see ``download(from:to:)``.
    ///
    /// A request that cannot be downloaded (not HTTP or HTTPS, not `GET`) gives a download that
    /// fails with ``DownloadError/Kind/invalidRequest``.
    @discardableResult
    public func download(_ request: DownloadRequest) async -> Download {
        var requestError = Self.validate(request)
        let location = PartialLocation(
            url: request.url ?? URL(fileURLWithPath: "/invalid"), destination: request.destination,
            partialsDirectory: configuration.storage.partialsDirectory)

        if requestError == nil, let existing = byLocation[location], existing.state != .completed,
            existing.state != .cancelled
        {
            if existing.request.url == request.url {
                await existing.resume()
                return existing
            }
            // Another URL to the same file: both would write the same partial file.
            requestError = .invalidRequest(
                "\(location.partialURL.path) is in use by the download of \(existing.request.url?.absoluteString ?? "?")"
            )
        }

        let download = Download(
            request: request, location: location, session: session, settings: settings,
            requestError: requestError)
        ordered.append(download)
        byID[download.id] = download
        if requestError == nil {
            byLocation[location] = download
        }
        await download.start()
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

    // MARK: - Finding downloads

    /// Every download this manager started, oldest first.
    public var downloads: [Download] {
        ordered
    }

    /// The download with identifier `id`.
    public func download(withID id: Download.ID) -> Download? {
        byID[id]
    }

    // MARK: - Controlling all downloads

    /// Pauses every running or queued download.
    public func pauseAll() async {
        await forEachDownload { await $0.pause() }
    }

    /// Resumes every paused or failed download.
    public func resumeAll() async {
        await forEachDownload { await $0.resume() }
    }

    /// Cancels every unfinished download.
    public func cancelAll(keepingPartialData: Bool = false) async {
        await forEachDownload { await $0.cancel(keepingPartialData: keepingPartialData) }
    }

    private func forEachDownload(_ body: @escaping @Sendable (Download) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for download in ordered where !download.state.isFinished || download.state == .failed {
                group.addTask { await body(download) }
            }
        }
    }

    private static func validate(_ request: DownloadRequest) -> DownloadError? {
        guard let url = request.url else { return .invalidRequest("the request has no URL") }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .invalidRequest("only http and https URLs can be downloaded, not \(url.absoluteString)")
        }
        guard url.host != nil else { return .invalidRequest("the URL has no host: \(url.absoluteString)") }
        let method = request.urlRequest.httpMethod?.uppercased() ?? "GET"
        guard method == "GET" else {
            return .invalidRequest("only GET requests can be resumed, not \(method)")
        }
        if case .file(let file) = request.destination.location, file.hasDirectoryPath {
            return .invalidRequest("the destination file \(file.path) is a directory path")
        }
        return nil
    }
}
