/// How often a running download saves how far it got
/// (``DownloadManager/Configuration/Storage-swift.struct/checkpoints``): its buffered bytes go to
/// the partial file and its record is rewritten, after ``bytes`` bytes or ``interval``, whichever
/// comes first, and whenever it pauses or stops. A process killed at any instant loses at most
/// that much, which a relaunch asks the server for again. Over several connections each one
/// checkpoints its own bytes, after ``bytesPerConnection``.
public struct CheckpointSettings: Sendable {
    /// Default: 8 MiB.
    public var bytes: Int64 = 8 << 20
    /// Default: 2 seconds.
    public var interval: Duration = .seconds(2)
    /// With several connections, each one checkpoints after this many bytes of its own (or after
    /// ``bytes``, if that is smaller), or ``interval``: a process killed during a download over
    /// `N` connections asks again for about `N` times this at most, plus what was in flight.
    /// Each checkpoint rewrites the download's record (and, with
    /// ``DownloadManager/Configuration-swift.struct/Storage-swift.struct/synchronizesToDisk``,
    /// flushes it and the file to the disk: raise it then on slow disks). Default: 256 KiB (over
    /// 8 connections of 20 MB/s, about 2 MB asked again per kill, for 3 % more CPU time than
    /// 8 MiB).
    public var bytesPerConnection: Int64 = 256 << 10
    /// The clock of ``interval``: the manager's.
    var clock = ClockReadings.continuous

    /// Default checkpoints.
    public init() {}

    /// The checkpoints of one connection of several.
    var perConnection: CheckpointSettings {
        var settings = self
        settings.bytes = min(bytes, max(1, bytesPerConnection))
        return settings
    }
}

/// When a running request's next checkpoint is due: once the file reaches a length, or at a
/// time, whichever comes first (see ``CheckpointSettings``).
struct CheckpointSchedule: Sendable {
    private var nextLength: Int64 = 0
    private var clock = ClockReadings.continuous
    /// When the next checkpoint is due, as ``clock`` reads.
    private var nextTime = Duration.zero

    /// The next checkpoint comes after `settings.bytes` more bytes than `length`, or after
    /// `settings.interval` from now, on the settings' clock.
    mutating func restart(after length: Int64, _ settings: CheckpointSettings) {
        nextLength = length + max(settings.bytes, 1)
        clock = settings.clock
        nextTime = clock.now() + settings.interval
    }

    /// Whether a checkpoint is due now that the file has `length` bytes.
    func isDue(at length: Int64) -> Bool {
        length >= nextLength || clock.now() >= nextTime
    }
}
