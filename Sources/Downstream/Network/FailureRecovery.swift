import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a failed request leads to, decided in one place for a download's attempts and for each
/// segment's requests: wait for the network when there is none (or none the system's policy lets
/// the request use), else try again after the retry policy's delay, else nothing more.
///
/// A download's machine then waits, retries or tries its next URL; a segment retries alone, or
/// ends its attempt for the download to decide (so that a lost network makes the download wait
/// for it rather than spend each segment's retries).
struct FailureRecovery: Sendable {
    var retryPolicy: RetryPolicy
    var networkMonitor: any NetworkMonitor

    enum Verdict: Equatable, Sendable {
        /// There is no network for the request: wait for it (counts as no retry).
        case waitForNetwork
        /// Try again after `delay`.
        case retry(after: Duration)
        /// Neither: the failure stands.
        case none
    }

    /// The `URLError` codes that may mean there is no network at all, not a problem of the server.
    static let noNetworkCodes: Set<URLError.Code> = [
        .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .networkConnectionLost,
        .timedOut, .dataNotAllowed, .internationalRoamingOff,
    ]

    /// The verdict on `error` of a request to `url`, which would be retry number `retry`
    /// (`random`, from -1 to 1, places the delay within the policy's jitter).
    func verdict(
        after error: DownloadError, from url: URL, retry: Int, random: Double = .random(in: -1...1)
    ) -> Verdict {
        if let policy = error.networkUnavailableReason {
            // The system would not use the network it has: wait for one the policy allows.
            if !networkMonitor.isReachable(url, despite: policy) { return .waitForNetwork }
        } else if error.kind == .network, let code = error.urlErrorCode, Self.noNetworkCodes.contains(code),
            !networkMonitor.isReachable(url)
        {
            return .waitForNetwork
        }
        if let delay = retryPolicy.delay(after: error, retry: retry, random: random) {
            return .retry(after: delay)
        }
        return .none
    }
}
