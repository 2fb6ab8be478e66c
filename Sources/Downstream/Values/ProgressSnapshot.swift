import Foundation

/// A download's, a group's or a manager's progress at one moment, small and `Codable`: what a
/// Live Activity's content state (or a widget's timeline entry) needs to draw it while the app is
/// suspended.
///
/// Besides the bytes and the state, a snapshot carries an estimate of when the downloads will
/// end, from the bytes left and the current speed (measured over the last two seconds, see
/// ``DownloadProgress/bytesPerSecond``), and ``timerInterval``, the span a time-based progress
/// bar (SwiftUI's `ProgressView(timerInterval:countsDown:)`) runs over: the system moves such a
/// bar on its own, without the app, and a new snapshot corrects it whenever the app runs again.
///
/// There is an estimate only while there is one to make: the state is
/// ``DownloadState/running``, the speed is above 0, and every length is known (for several
/// downloads, every one that has not ended). Paused, queued, waiting, failed or stalled
/// downloads, and a response without a length, give none: draw ``fractionCompleted`` then (nil
/// when the length is unknown).
///
/// A snapshot holds no text but its state's name, so its encoded form stays small, whatever
/// the downloads (about 250 bytes of JSON at most; ActivityKit allows 4 KB): titles belong in
/// the activity's attributes, which do not change.
public struct ProgressSnapshot: Sendable, Hashable {
    /// What the downloads are doing: for one download, its state; for several, see
    /// ``init(_:at:)``.
    public var state: DownloadState
    /// Bytes received, in all.
    public var bytesReceived: Int64
    /// The total length, when it is known (for several downloads, the total of those whose
    /// length is known).
    public var expectedBytes: Int64?
    /// The part received, from 0 to 1, when every length is known.
    public var fractionCompleted: Double?
    /// How many downloads the snapshot covers (1 for one download).
    public var downloadCount: Int
    /// How many of them have completed.
    public var completedCount: Int
    /// How many of them have failed.
    public var failedCount: Int
    /// When the snapshot was taken.
    public var date: Date
    /// When the downloads should end at the current speed; nil when there is no estimate.
    public var estimatedCompletion: Date?

    /// Creates a snapshot of one download, from its progress and state
    /// (``Download/currentProgress`` and ``Download/state``, or the latest values of its
    /// ``Download/progress`` and ``Download/events``).
    ///
    /// - Parameters:
    ///   - progress: the download's progress.
    ///   - state: the download's state.
    ///   - date: the time of `progress` (now, for a value just received).
    public init(_ progress: DownloadProgress, state: DownloadState, at date: Date = Date()) {
        self.state = state
        bytesReceived = progress.bytesReceived
        expectedBytes = progress.expectedBytes
        fractionCompleted = state == .completed ? 1 : progress.fractionCompleted
        downloadCount = 1
        completedCount = state == .completed ? 1 : 0
        failedCount = state == .failed ? 1 : 0
        self.date = date
        estimatedCompletion = Self.completion(
            state: state, remaining: progress.estimatedTimeRemaining, at: date)
    }

    /// Creates a snapshot of several downloads, from their totals: a group's
    /// (``DownloadGroup/progress``) or a manager's (``DownloadManager/progress``).
    ///
    /// Their state is the most active of their states: ``DownloadState/running`` while one
    /// runs; else waiting to retry, waiting for a network or queued while one is; else
    /// ``DownloadState/failed`` if one failed (it waits for ``Download/resume()``), else
    /// ``DownloadState/paused`` if one is paused; else, every download having ended,
    /// ``DownloadState/completed`` (also for none at all), or ``DownloadState/cancelled`` when
    /// all were cancelled. The estimate is for all of them at their speed together; there is none
    /// while a download that has not ended does not know its length
    /// (``AggregateProgress/unknownLengthCount``).
    ///
    /// - Parameters:
    ///   - totals: the downloads' totals.
    ///   - date: the time of `totals` (now, for a value just received).
    public init(_ totals: AggregateProgress, at date: Date = Date()) {
        state = Self.state(of: totals)
        bytesReceived = totals.bytesReceived
        let lengthsKnown = totals.unknownLengthCount == 0
        expectedBytes = totals.expectedBytes
        fractionCompleted = state == .completed ? 1 : lengthsKnown ? totals.fractionCompleted : nil
        downloadCount = totals.downloadCount
        completedCount = totals.count(.completed)
        failedCount = totals.count(.failed)
        self.date = date
        estimatedCompletion = Self.completion(
            state: state, remaining: lengthsKnown ? totals.estimatedTimeRemaining : nil, at: date)
    }

    /// The span of a time-based progress bar that shows ``fractionCompleted`` at ``date`` and
    /// fills at the current speed, to be full at ``estimatedCompletion``; nil when there is no
    /// estimate.
    ///
    /// It starts when the downloads would have started at their current speed, so that SwiftUI's
    /// `ProgressView(timerInterval: interval, countsDown: false)` draws the part received now
    /// and moves on its own until the next snapshot; `Text(timerInterval:)` with it counts down
    /// the time left.
    public var timerInterval: ClosedRange<Date>? {
        guard let end = estimatedCompletion else { return nil }
        let fraction = min(max(fractionCompleted ?? 0, 0), 1)
        guard fraction < 1, end > date else { return end...end }
        let elapsed = end.timeIntervalSince(date) * fraction / (1 - fraction)
        return date.addingTimeInterval(-elapsed)...end
    }

    private static func completion(state: DownloadState, remaining: Duration?, at date: Date) -> Date? {
        guard state == .running, let remaining else { return nil }
        return date.addingTimeInterval(remaining.inSeconds)
    }

    /// The most active state of several downloads (see ``init(_:at:)``).
    private static func state(of totals: AggregateProgress) -> DownloadState {
        let active: [DownloadState] = [.running, .waitingToRetry, .waitingForNetwork, .queued, .failed, .paused]
        if let state = active.first(where: { totals.count($0) > 0 }) { return state }
        let cancelled = totals.count(.cancelled)
        return cancelled > 0 && cancelled == totals.downloadCount ? .cancelled : .completed
    }
}
