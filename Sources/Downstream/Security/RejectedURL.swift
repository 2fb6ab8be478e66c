import Foundation

/// A download's URL was refused by the server (`401`, `403`, `410` by default): a signed link
/// that expired, say. Your URL-refresh handler may give a fresh URL for the same file (see
/// ``DownloadManager/Configuration/URLRefresh``).
public struct RejectedURL: Sendable, Hashable {
    /// The download whose URL was refused.
    public var downloadID: DownloadID
    /// The URL the download was asked for (``Download/request``), which identifies it.
    public var originalURL: URL
    /// The URL that was refused: the one in use (a mirror, or a fresh URL given earlier).
    public var url: URL
    /// The refusal.
    public var response: ServerResponse
    /// The download's own data (``DownloadRequest/metadata``): what your app needs to ask for a
    /// new link.
    public var metadata: [String: String]
}

extension DownloadManager.Configuration {
    /// How downloads get a fresh URL when theirs is refused: signed, expiring links (object stores,
    /// CDNs, download services) that expire before a large file is complete, or before a paused
    /// download resumes.
    ///
    /// ```swift
    /// $0.urlRefresh.handler = { rejected in
    ///     try? await api.freshLink(for: rejected.metadata["fileID"] ?? "")
    /// }
    /// ```
    ///
    /// The download continues from its bytes on disk with the fresh URL (after comparing the bytes
    /// before the resume point, see ``Resumption``), keeps it across relaunches, and tells with
    /// ``DownloadEvent/switchedURL(to:)``. To give a URL yourself at any time, call
    /// ``Download/setURL(_:)``.
    public struct URLRefresh: Sendable {
        /// Gives a fresh URL for the file, or nil to decline (the refusal then takes its course: a
        /// mirror, or the download fails with the status). The download waits for the answer.
        /// Default: nil.
        public var handler: (@Sendable (RejectedURL) async -> URL?)?
        /// The statuses that mean the URL is refused. Default: 401, 403, 410. (A `401` goes to the
        /// authentication handler first, if there is one.)
        public var statusCodes: Set<Int> = [401, 403, 410]
        /// How many fresh URLs in a row a download asks for without receiving a byte before it
        /// takes the refusal as final. Default: 3.
        public var maximumAttempts = 3

        /// Default URL-refresh settings.
        public init() {}
    }
}
