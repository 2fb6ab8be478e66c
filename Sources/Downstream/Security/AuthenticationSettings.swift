import Foundation

/// How downloads answer servers that ask for credentials
/// (``DownloadManager/Configuration/authentication``).
public struct AuthenticationSettings: Sendable {
    /// Answers a `401` or `407` response; the download waits for the answer. With credentials,
    /// the request is sent again with them (and every later request of the download, in this
    /// process); credentials are not stored with the download. Default: nil (such a response
    /// fails the download with ``DownloadError/Kind/httpStatus``).
    public var handler: (@Sendable (AuthenticationChallenge) async -> AuthenticationChallenge.Decision)?
    /// How many challenges one run of a download answers before it fails with the status.
    /// Default: 3.
    public var maximumAttempts = 3

    /// Default authentication settings.
    public init() {}
}
