import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An event monitor that writes one line per request, response, resume, retry and end of every
/// download (and, if asked, per progress value) to standard output or wherever you say; and a
/// line when the manager falls back to URLSession. URLs are written without their secrets, and
/// what servers say is escaped (see ``LogText``).
///
/// ```swift
/// configuration.eventMonitors = [ConsoleEventLogger()]
/// // [Downstream 1F0C2A9E] → GET https://example.com/big.iso Range: bytes=0-67108863
/// // [Downstream 1F0C2A9E] ← 206 Content-Length: 67108864 Content-Range: bytes 0-67108863/734003200
/// // [Downstream 1F0C2A9E] ✓ /Users/me/Downloads/big.iso
/// ```
public struct ConsoleEventLogger: DownloadEventMonitor {
    /// Whether each progress value is written too (at most one per progress interval per
    /// download).
    public var logsProgress: Bool
    private let write: @Sendable (String) -> Void

    /// A logger that writes to standard output, or hands each line to `write`.
    public init(logsProgress: Bool = false, write: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.logsProgress = logsProgress
        self.write = write
    }

    private func log(_ download: Download, _ text: String) {
        write("[Downstream \(download.id.rawValue.uuidString.prefix(8))] \(LogText.escaped(text))")
    }

    public func download(_ download: Download, acceptsAnyCertificateOf host: String) {
        log(download, "WARNING: the certificate of \(host) is not checked (TrustRule.acceptingAnyCertificate)")
    }

    public func download(_ download: Download, willSend request: URLRequest) {
        var line = "→ \(request.httpMethod ?? "GET") \(request.url.map(LogText.url) ?? "?")"
        for name in ["Range", "If-Range"] {
            if let value = request.value(forHTTPHeaderField: name) { line += " \(name): \(value)" }
        }
        log(download, line)
    }

    public func download(_ download: Download, didReceive response: ServerResponse) {
        var line = "← \(response.statusCode)"
        for name in ["Content-Length", "Content-Range", "Content-Type"] {
            if let value = response.value(forHTTPHeaderField: name) { line += " \(name): \(value)" }
        }
        log(download, line)
    }

    public func download(_ download: Download, didPublish event: DownloadEvent) {
        if let offset = event.resumeOffset {
            log(download, "resumed at byte \(offset)")
        } else if let delay = event.retryDelay, let error = event.error {
            log(download, "retry in \(delay.inSeconds) s after: \(error.kind) (\(error.reason))")
        } else if let url = event.url {
            log(download, "now from \(LogText.url(url))")
        } else if event.state == .waitingForNetwork {
            log(download, "waiting for the network after: \(event.error?.reason ?? "?")")
        } else if let file = event.fileURL {
            log(download, "✓ \(file.path)")
        } else if event == .cancelled {
            log(download, "cancelled")
        } else if event.state == .failed, let error = event.error {
            log(download, error.kind == .cancelled ? "cancelled" : "✗ \(error)")
        }
    }

    public func transportFellBack(to transport: String, reason: String) {
        write("[Downstream] requests go through \(transport): \(LogText.escaped(reason))")
    }

    public func digestsFellBack(to implementation: String, reason: String) {
        write("[Downstream] digests are computed in \(implementation): \(LogText.escaped(reason))")
    }

    public func download(_ download: Download, didProgress progress: DownloadProgress) {
        guard logsProgress else { return }
        let total = progress.expectedBytes.map { " of \($0)" } ?? ""
        log(download, "\(progress.bytesReceived)\(total) bytes, \(Int(progress.bytesPerSecond)) B/s")
    }

}
