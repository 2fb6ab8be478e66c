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
    /// Headers your app adds to the requests of a download: credentials and other secrets that
    /// are not stored with it. Called before each attempt of every download (its first request,
    /// each retry and resume, and after a relaunch, when the download was restored from the
    /// store); the headers go with every request of the attempt (its ranges, its segments), and
    /// win over the request's own. Throwing fails the download with what you throw when it is a
    /// ``DownloadError``, else with ``DownloadError/Kind/invalidRequest``. Default: nil.
    ///
    /// A download's record keeps no `Authorization`, `Proxy-Authorization` or `Cookie` header
    /// (nor any whose name says it carries a token, a secret, a password or an API key): a
    /// restored download gets them here (see <doc:SurvivingRelaunch>).
    ///
    /// ```swift
    /// configuration.authentication.requestAdapter = { adaptation in
    ///     ["Authorization": "Bearer \(try await tokens.current(for: adaptation.url))"]
    /// }
    /// ```
    public var requestAdapter: (@Sendable (RequestAdaptation) async throws -> [String: String])?

    /// Default authentication settings.
    public init() {}
}
