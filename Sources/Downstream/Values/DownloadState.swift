/// Where a download is in its life.
///
/// A struct with static members rather than an enum, so that states can be added later without
/// breaking your `switch` statements: compare with `==`.
public struct DownloadState: Sendable, Hashable, CustomStringConvertible {
    enum Code: String, Sendable {
        case queued, running, paused, waitingToRetry, waitingForNetwork, completed, failed, cancelled
    }

    let code: Code

    /// Waiting in its manager's queue for its turn to run.
    public static let queued = DownloadState(code: .queued)
    /// Asking the server or receiving bytes (also while a pause or cancel is taking effect).
    public static let running = DownloadState(code: .running)
    /// Stopped by ``Download/pause()``; the bytes received are on disk. ``Download/resume()``
    /// continues from them.
    public static let paused = DownloadState(code: .paused)
    /// Stopped by a transient failure (a reset, a timeout, a 503…); it goes back to the queue
    /// after a delay, and continues from the bytes on disk (see ``RetryPolicy``).
    public static let waitingToRetry = DownloadState(code: .waitingToRetry)
    /// Stopped because there is no network (not connected, no route, host not found while the
    /// network monitor says the network is down); it goes back to the queue when the network is
    /// back, and continues from the bytes on disk (see
    /// ``DownloadManager/Configuration/Connectivity``).
    public static let waitingForNetwork = DownloadState(code: .waitingForNetwork)
    /// The file is at its destination.
    public static let completed = DownloadState(code: .completed)
    /// Stopped by an error. Unless the error says otherwise, the bytes received are kept and
    /// ``Download/resume()`` continues from them.
    public static let failed = DownloadState(code: .failed)
    /// Cancelled; it will not run again.
    public static let cancelled = DownloadState(code: .cancelled)

    /// Whether the download has ended: completed, failed or cancelled.
    public var isFinished: Bool {
        self == .completed || self == .failed || self == .cancelled
    }

    public var description: String { code.rawValue }
}
