import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Observes what the downloads of a manager do, for logging and metrics: every request sent,
/// every response, resumes, retries, progress and the end of each download.
///
/// Add monitors to ``DownloadManager/Configuration/eventMonitors``. Implement the methods you
/// need; the others do nothing. Each monitor is called on a serial queue of its own, in the
/// order things happened, and never holds a download up: a slow monitor only falls behind, and
/// one that falls far behind misses progress values (never other calls).
///
/// ```swift
/// struct Metrics: DownloadEventMonitor {
///     func download(_ download: Download, didFinishWith result: Result<URL, DownloadError>) {
///         statsd.increment(result.isSuccess ? "downloads.ok" : "downloads.failed")
///     }
/// }
/// ```
public protocol DownloadEventMonitor: Sendable {
    /// A request of `download` is about to be sent (the first, a continuation, a resume or a
    /// retry), with the headers Downstream set (`Range`, `If-Range`, `Accept-Encoding`).
    func download(_ download: Download, willSend request: URLRequest)
    /// A response to a request of `download` arrived (its head; the body follows).
    func download(_ download: Download, didReceive response: ServerResponse)
    /// `download` continues from `offset`, the bytes already on disk.
    func download(_ download: Download, didResumeAt offset: Int64)
    /// A request of `download` failed with a transient `error`; it is tried again after `delay`.
    func download(_ download: Download, willRetryAfter error: DownloadError, in delay: Duration)
    /// `download` takes its file from `url` from now on: a mirror took over, or a fresh URL was
    /// given (see ``DownloadEvent/switchedURL(to:)``).
    func download(_ download: Download, didSwitchTo url: URL)
    /// `download` progressed (at most once per progress interval).
    func download(_ download: Download, didProgress progress: DownloadProgress)
    /// `download` changed state or did something worth telling (every ``DownloadEvent``).
    func download(_ download: Download, didPublish event: DownloadEvent)
    /// `download` ended: completed with its file, failed, or was cancelled.
    func download(_ download: Download, didFinishWith result: Result<URL, DownloadError>)
}

extension DownloadEventMonitor {
    public func download(_ download: Download, willSend request: URLRequest) {}
    public func download(_ download: Download, didReceive response: ServerResponse) {}
    public func download(_ download: Download, didResumeAt offset: Int64) {}
    public func download(_ download: Download, willRetryAfter error: DownloadError, in delay: Duration) {}
    public func download(_ download: Download, didSwitchTo url: URL) {}
    public func download(_ download: Download, didProgress progress: DownloadProgress) {}
    public func download(_ download: Download, didPublish event: DownloadEvent) {}
    public func download(_ download: Download, didFinishWith result: Result<URL, DownloadError>) {}
}
