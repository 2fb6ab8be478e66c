import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How redirects are followed (``DownloadManager/Configuration/redirects``).
///
/// Every redirect is checked before it is followed, then given to ``handler`` if you set one:
/// - more than ``maximumCount`` redirects for one request fail the download;
/// - a redirect from HTTPS to HTTP fails it unless ``allowsInsecureDowngrade``;
/// - a redirect to another origin (scheme, host or port) drops ``credentialHeaders``, so
///   that your credentials only go where you sent them.
///
/// A refused redirect fails the download with ``DownloadError/Kind/redirectRefused``.
public struct RedirectSettings: Sendable {
    /// The most redirects one request follows. Default: 10.
    public var maximumCount = 10
    /// Whether a redirect from `https` to `http` is followed. Default: false.
    public var allowsInsecureDowngrade = false
    /// The headers dropped when a redirect leaves the origin of the URL the download asked
    /// for (names in any case). Default: `Authorization`, `Proxy-Authorization`, `Cookie`.
    public var credentialHeaders: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie"]
    /// Decides about each redirect that passed the checks above: follow it, change it or
    /// refuse it. The request waits for the answer. Default: nil (follow).
    public var handler: (@Sendable (Redirect) async -> Redirect.Decision)?

    /// Default redirect settings.
    public init() {}
}
