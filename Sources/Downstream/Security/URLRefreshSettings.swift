import Foundation

/// How downloads get a fresh URL when theirs is refused (``DownloadManager/Configuration/urlRefresh``):
/// signed, expiring links (object stores, CDNs, download services) that expire before a large file
/// is complete, or before a paused download resumes.
///
/// ```swift
/// $0.urlRefresh.handler = { rejected in
///     try? await api.freshLink(for: rejected.metadata["fileID"] ?? "")
/// }
/// ```
///
/// The download continues from its bytes on disk with the fresh URL (after comparing the bytes
/// before the resume point, see ``DownloadManager/Configuration/Resumption``), keeps it across
/// relaunches, and tells with ``DownloadEvent/switchedURL(to:)``. To give a URL yourself at any
/// time, call ``Download/setURL(_:)``.
public struct URLRefreshSettings: Sendable {
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
