/// How far several downloads have come together: all of a manager's (see
/// ``DownloadManager/progress``) or a group's (see ``DownloadGroup/progress``).
///
/// Byte counts leave out cancelled downloads; ``countsByState`` counts every download.
public struct AggregateProgress: Sendable, Hashable, CustomStringConvertible {
    /// How many downloads there are.
    public var downloadCount: Int
    /// How many downloads are in each state.
    public var countsByState: [DownloadState: Int]
    /// Bytes received, in all.
    public var bytesReceived: Int64
    /// The total length of the downloads whose length is known; nil if none is.
    public var expectedBytes: Int64?
    /// The part received of the downloads whose length is known, from 0 to 1.
    public var fractionCompleted: Double?
    /// The downloads' speeds added up, in bytes per second.
    public var bytesPerSecond: Double
    /// The time to receive the rest of the downloads whose length is known, at the current speed.
    public var estimatedTimeRemaining: Duration?
    /// How many downloads that have not ended (neither completed, failed nor cancelled) do not
    /// know their length yet: a queued download before its first response, a response without
    /// one. ``expectedBytes``, ``fractionCompleted`` and ``estimatedTimeRemaining`` leave them
    /// out; a ``ProgressSnapshot`` has no estimate while there are any.
    public var unknownLengthCount: Int

    /// An empty total.
    public init() {
        downloadCount = 0
        countsByState = [:]
        bytesReceived = 0
        bytesPerSecond = 0
        unknownLengthCount = 0
    }

    /// How many downloads are in `state`.
    public func count(_ state: DownloadState) -> Int {
        countsByState[state, default: 0]
    }

    public var description: String {
        let fraction = fractionCompleted.map { " (\(Int($0 * 100))%)" } ?? ""
        return "\(downloadCount) downloads, \(bytesReceived) bytes\(fraction), \(Int(bytesPerSecond)) B/s"
    }
}
