import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When a failed request is tried again by itself, and when (``DownloadManager/Configuration/retry``).
///
/// A transient failure (a reset or early close, a timeout, an unreachable host, `408`, `429`,
/// `5xx`) puts the download in ``DownloadState/waitingToRetry``; after the delay it goes back
/// to the queue and continues from the bytes on disk. Delays grow exponentially, with jitter so
/// that many downloads do not retry in step; a server's `Retry-After` is honoured. The count
/// starts again whenever the download is started or resumed by request.
public struct RetryPolicy: Sendable {
    /// Retries after the first failure of a run. Default: 3.
    public var maximumRetries = 3
    /// The delay before the first retry. Default: 1 second.
    public var initialDelay: Duration = .seconds(1)
    /// How much each delay grows. Default: 2.
    public var multiplier = 2.0
    /// The longest delay. Default: 60 seconds.
    public var maximumDelay: Duration = .seconds(60)
    /// The part of each delay that is random, from 0 to 1 (0.2: ± 20 %). Default: 0.2.
    public var jitter = 0.2
    /// The longest `Retry-After` honoured; a server that asks for more makes the download fail.
    /// Default: 5 minutes.
    public var maximumRetryAfter: Duration = .seconds(300)
    /// The HTTP statuses that are transient. Default: 408, 429, 500, 502, 503, 504.
    public var transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The `URLError` codes that are transient. Default: connection lost, closed early
    /// (`unknown`, as Linux reports it), timed out, cannot connect or find the host, not
    /// connected, DNS failure.
    public var transientNetworkErrors: Set<URLError.Code> = [
        .networkConnectionLost, .unknown, .timedOut, .cannotConnectToHost, .cannotFindHost,
        .notConnectedToInternet, .dnsLookupFailed,
    ]

    /// The default policy.
    public init() {}

    /// Never retry by itself.
    public static var none: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumRetries = 0
        return policy
    }

    /// How long to wait before retry number `retry` (from 1) after `error`, or nil if the
    /// error is not transient or no retry is left. `random` (from -1 to 1) picks the jitter.
    func delay(after error: DownloadError, retry: Int, random: Double) -> Duration? {
        guard retry <= maximumRetries, isTransient(error) else { return nil }
        if let retryAfter = error.retryAfter {
            return retryAfter <= maximumRetryAfter ? retryAfter : nil
        }
        let base = initialDelay.inSeconds * pow(max(multiplier, 1), Double(retry - 1))
        let capped = min(base, maximumDelay.inSeconds)
        let jittered = capped * (1 + min(max(jitter, 0), 1) * min(max(random, -1), 1))
        return .seconds(max(0, jittered))
    }

    func isTransient(_ error: DownloadError) -> Bool {
        switch error.kind {
        case .httpStatus: error.statusCode.map(transientStatusCodes.contains) ?? false
        case .network: error.urlErrorCode.map(transientNetworkErrors.contains) ?? false
        default: false
        }
    }
}
