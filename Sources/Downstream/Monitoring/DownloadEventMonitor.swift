import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Observes what the downloads of a manager do, for logging and metrics: every request sent,
/// every response, every event (resumes, retries, switches of URL, the end of each download) and
/// progress.
///
/// Add monitors to ``DownloadManager/Configuration/eventMonitors``. Implement the methods you
/// need; the others do nothing. Each monitor is called on a serial queue of its own, in the
/// order things happened, and never holds a download up: a slow monitor only falls behind, and
/// one that falls far behind misses progress values (never other calls).
/// ``DownloadManager/invalidate()`` returns once every monitor has caught up.
///
/// ```swift
/// struct Metrics: DownloadEventMonitor {
///     func download(_ download: Download, didPublish event: DownloadEvent) {
///         if event.fileURL != nil { statsd.increment("downloads.ok") }
///         if event.state == .failed { statsd.increment("downloads.failed") }
///     }
/// }
/// ```
public protocol DownloadEventMonitor: Sendable {
    /// A request of `download` is about to be sent (the first, a continuation, a resume or a
    /// retry), with the headers Downstream set (`Range`, `If-Range`, `Accept-Encoding`).
    func download(_ download: Download, willSend request: URLRequest)
    /// A response to a request of `download` arrived (its head; the body follows).
    func download(_ download: Download, didReceive response: ServerResponse)
    /// `download` published `event`: every ``DownloadEvent``, as ``Download/events`` delivers it.
    ///
    /// Read what happened with the event's properties: a resume from the bytes on disk
    /// (``DownloadEvent/resumeOffset``), a retry after a transient error
    /// (``DownloadEvent/retryDelay`` and ``DownloadEvent/error``), a new URL in use
    /// (``DownloadEvent/url``), and the end of the download: completed with its file
    /// (``DownloadEvent/fileURL``), failed (``DownloadEvent/error``) or ``DownloadEvent/cancelled``.
    func download(_ download: Download, didPublish event: DownloadEvent)
    /// `download` progressed (at most once per progress interval).
    func download(_ download: Download, didProgress progress: DownloadProgress)
    /// The manager could not use the transport it would have (on Linux, libcurl: see
    /// ``DownloadManager/Configuration/Network-swift.struct/TransportChoice/automatic``) and puts
    /// its requests on the wire with `transport` ("URLSession") instead; `reason` says why. Told
    /// once, as the manager is made.
    func transportFellBack(to transport: String, reason: String)
    /// The manager could not load the platform's hash functions (on Linux, libcrypto's, which
    /// use the CPU's SHA instructions) and computes SHA-2, SHA-1 and MD5 digests with
    /// Downstream's own code, `implementation` ("Swift"), several times slower; `reason` says
    /// why. Told once, as the manager is made.
    func digestsFellBack(to implementation: String, reason: String)
    /// A request of `download` is about to go to `host`, whose certificate nobody checks
    /// (``TrustRule/acceptingAnyCertificate(forHost:)``): told for every such request, so that a
    /// development setting that reached a release is seen.
    func download(_ download: Download, acceptsAnyCertificateOf host: String)
}

extension DownloadEventMonitor {
    public func download(_ download: Download, willSend request: URLRequest) {}
    public func download(_ download: Download, didReceive response: ServerResponse) {}
    public func download(_ download: Download, didPublish event: DownloadEvent) {}
    public func download(_ download: Download, didProgress progress: DownloadProgress) {}
    public func transportFellBack(to transport: String, reason: String) {}
    public func digestsFellBack(to implementation: String, reason: String) {}
    public func download(_ download: Download, acceptsAnyCertificateOf host: String) {}
}
