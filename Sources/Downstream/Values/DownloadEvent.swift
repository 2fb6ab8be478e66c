import Foundation

/// Something that happened to a download: a change of state, or a resume from an offset.
///
/// A struct rather than an enum so that events can be added without breaking your code. Compare
/// with the static members, and read the details with the properties:
///
/// ```swift
/// for await event in download.events {
///     if let offset = event.resumeOffset { print("resumed at byte \(offset)") }
///     if let file = event.fileURL { print("saved at \(file.path)") }
/// }
/// ```
public struct DownloadEvent: Sendable, Hashable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case queued
        case running
        case resumed(offset: Int64)
        case restarted
        case paused
        case willRetry(in: Duration, after: DownloadError)
        case waitingForNetwork(after: DownloadError)
        case switchedURL(URL)
        case completed(URL)
        case failed(DownloadError)
        case cancelled
        case segmentStarted(Range<Int64>)
        case segmentFinished(Range<Int64>)
    }

    let code: Code

    /// The download waits in the queue for its turn.
    public static let queued = DownloadEvent(code: .queued)
    /// A request went out (the first, or one that resumes).
    public static let running = DownloadEvent(code: .running)
    /// The server accepted a range: bytes are appended to the `offset` bytes already on disk.
    public static func resumed(at offset: Int64) -> DownloadEvent {
        DownloadEvent(code: .resumed(offset: offset))
    }
    /// The bytes on disk were discarded and the file is received again from its first byte:
    /// the server ignored the range, or its file changed.
    public static let restarted = DownloadEvent(code: .restarted)
    /// The download is paused; its bytes are on disk.
    public static let paused = DownloadEvent(code: .paused)
    /// A transient failure: the download goes back to the queue in `delay`, and continues from the
    /// bytes on disk.
    public static func willRetry(in delay: Duration, after error: DownloadError) -> DownloadEvent {
        DownloadEvent(code: .willRetry(in: delay, after: error))
    }
    /// There is no network: the download waits for it (not counting a retry), then continues
    /// from the bytes on disk.
    public static func waitingForNetwork(after error: DownloadError) -> DownloadEvent {
        DownloadEvent(code: .waitingForNetwork(after: error))
    }
    /// The download takes its file from `url` from now on: a mirror took over after the URL in
    /// use failed, or a fresh URL was given (``Download/setURL(_:)``, or the URL-refresh handler).
    public static func switchedURL(to url: URL) -> DownloadEvent {
        DownloadEvent(code: .switchedURL(url))
    }
    /// The file is complete at `url`.
    public static func completed(_ url: URL) -> DownloadEvent {
        DownloadEvent(code: .completed(url))
    }
    /// The download failed with `error`.
    public static func failed(_ error: DownloadError) -> DownloadEvent {
        DownloadEvent(code: .failed(error))
    }
    /// The download was cancelled.
    public static let cancelled = DownloadEvent(code: .cancelled)
    /// A connection of a download over several connections started on the file's bytes `range`
    /// (``DownloadRequest/maximumConnections``): a segment of its own, the rest of one a failed
    /// or paused connection left, or half of the largest remaining one (then the other
    /// connection's segment ends where this one starts).
    public static func segmentStarted(_ range: Range<Int64>) -> DownloadEvent {
        DownloadEvent(code: .segmentStarted(range))
    }
    /// A connection of a download over several connections has every byte of `range` on disk.
    public static func segmentFinished(_ range: Range<Int64>) -> DownloadEvent {
        DownloadEvent(code: .segmentFinished(range))
    }

    /// The state the download is in after this event, for events that change it.
    public var state: DownloadState? {
        switch code {
        case .queued: .queued
        case .running: .running
        case .paused: .paused
        case .willRetry: .waitingToRetry
        case .waitingForNetwork: .waitingForNetwork
        case .completed: .completed
        case .failed: .failed
        case .cancelled: .cancelled
        case .resumed, .restarted, .switchedURL, .segmentStarted, .segmentFinished: nil
        }
    }

    /// The file's bytes, for ``segmentStarted(_:)`` and ``segmentFinished(_:)``.
    public var segment: Range<Int64>? {
        switch code {
        case .segmentStarted(let range), .segmentFinished(let range): range
        default: nil
        }
    }

    /// The offset a resume started from, for ``resumed(at:)``.
    public var resumeOffset: Int64? {
        if case .resumed(let offset) = code { offset } else { nil }
    }

    /// The destination file, for ``completed(_:)``.
    public var fileURL: URL? {
        if case .completed(let url) = code { url } else { nil }
    }

    /// The error, for ``failed(_:)``, ``willRetry(in:after:)`` and ``waitingForNetwork(after:)``.
    public var error: DownloadError? {
        switch code {
        case .failed(let error), .willRetry(_, let error), .waitingForNetwork(let error): error
        default: nil
        }
    }

    /// The URL the download switched to, for ``switchedURL(to:)``.
    public var url: URL? {
        if case .switchedURL(let url) = code { url } else { nil }
    }

    /// How long until the retry, for ``willRetry(in:after:)``.
    public var retryDelay: Duration? {
        if case .willRetry(let delay, _) = code { delay } else { nil }
    }

    public var description: String {
        switch code {
        case .queued: "queued"
        case .running: "running"
        case .resumed(let offset): "resumed at \(offset)"
        case .restarted: "restarted from 0"
        case .paused: "paused"
        case .willRetry(let delay, let error): "retrying in \(delay) after: \(error)"
        case .waitingForNetwork(let error): "waiting for the network after: \(error)"
        case .switchedURL(let url): "switched to \(LogText.url(url))"
        case .completed(let url): "completed \(url.path)"
        case .failed(let error): "failed: \(error)"
        case .cancelled: "cancelled"
        case .segmentStarted(let range): "segment \(range.lowerBound)..<\(range.upperBound) started"
        case .segmentFinished(let range): "segment \(range.lowerBound)..<\(range.upperBound) finished"
        }
    }
}
