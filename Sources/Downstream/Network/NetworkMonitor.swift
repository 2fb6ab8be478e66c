import Foundation

/// Tells whether there is a network to send requests on, and when it is back.
///
/// When a request fails in a way that may mean there is no network at all (not connected, no
/// route, host not found, connection lost), the download asks its manager's monitor. If the
/// monitor says the URL cannot be reached, the download waits for the network
/// (``DownloadState/waitingForNetwork``) instead of spending its retries, and continues from its
/// bytes once ``waitUntilReachable(_:)`` returns.
///
/// The default monitor follows the system's network path on Apple platforms; on Linux it looks at
/// the network interfaces (one that is up, not the loopback, with an address) and probes again
/// with a growing interval while a download waits. Loopback hosts are always reachable. Give your
/// own in ``DownloadManager/Configuration/Connectivity/monitor`` (an app that knows better, or a
/// test that plays the network going away and coming back).
public protocol NetworkMonitor: Sendable {
    /// Whether requests to `url` can leave the device now, as far as the monitor knows. Called
    /// after a failed request; must return at once, without network traffic.
    func isReachable(_ url: URL) -> Bool

    /// Returns once requests to `url` may be reachable again, or as soon as the calling task is
    /// cancelled.
    func waitUntilReachable(_ url: URL) async

    /// Whether requests to `url` can leave the device now on a network that `policy` does not
    /// forbid (not cellular for ``NetworkUnavailableReason/cellular``…), as far as the monitor
    /// knows. The default says no: a monitor that does not know the kinds of networks cannot tell.
    func isReachable(_ url: URL, despite policy: NetworkUnavailableReason) -> Bool

    /// Returns once requests to `url` may leave the device on a network that `policy` does not
    /// forbid, or as soon as the calling task is cancelled. The default waits until the task is
    /// cancelled: the download then waits until the manager's longest network wait, or until it
    /// is resumed.
    func waitUntilReachable(_ url: URL, despite policy: NetworkUnavailableReason) async

    /// Whether requests to `url` would go out now on a network that `policy` forbids (a cellular
    /// network for ``NetworkUnavailableReason/cellular``…): nil when the monitor does not know
    /// the kinds of networks, false when there is no network at all. Asked when a download is to
    /// start and when the manager's network access changes
    /// (``DownloadManager/setNetworkAccess(_:)``), so that a download waits for a network its
    /// policy allows rather than use this one; must return at once, without network traffic. The
    /// default says nil: the system's own checks of a request's policy (Apple platforms) then
    /// decide alone.
    func isForbidden(_ url: URL, by policy: NetworkUnavailableReason) -> Bool?
}

extension NetworkMonitor {
    public func isReachable(_ url: URL, despite policy: NetworkUnavailableReason) -> Bool {
        false
    }

    public func isForbidden(_ url: URL, by policy: NetworkUnavailableReason) -> Bool? {
        nil
    }

    public func waitUntilReachable(_ url: URL, despite policy: NetworkUnavailableReason) async {
        // A stream that never yields ends when the task is cancelled.
        let (never, continuation) = AsyncStream<Never>.makeStream()
        for await _ in never {}
        withExtendedLifetime(continuation) {}
    }
}
