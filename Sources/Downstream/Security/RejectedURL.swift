import Foundation

/// A download's URL was refused by the server (`401`, `403`, `410` by default): a signed link
/// that expired, say. Your URL-refresh handler may give a fresh URL for the same file (see
/// ``URLRefreshSettings``).
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
