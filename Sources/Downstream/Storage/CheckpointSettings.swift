/// How often a running download saves how far it got
/// (``DownloadManager/Configuration/Storage-swift.struct/checkpoints``): its buffered bytes go to
/// the partial file and its record is rewritten, after ``bytes`` bytes or ``interval``, whichever
/// comes first, and whenever it pauses or stops. A process killed at any instant loses at most
/// that much, which a relaunch asks the server for again.
public struct CheckpointSettings: Sendable {
    /// Default: 8 MiB.
    public var bytes: Int64 = 8 << 20
    /// Default: 2 seconds.
    public var interval: Duration = .seconds(2)

    /// Default checkpoints.
    public init() {}
}
