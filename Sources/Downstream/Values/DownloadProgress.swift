/// How far a download has come.
///
/// ``Download/progress`` delivers these: the latest value first, then coalesced updates, and a
/// final one when the download ends.
public struct DownloadProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes of the file received so far, counted from the file's first byte (a resumed download
    /// starts from the bytes it already had).
    public var bytesReceived: Int64
    /// The file's whole length, when the server said it.
    public var expectedBytes: Int64?
    /// Receiving speed in bytes per second, over the last two seconds of the current request;
    /// 0 when nothing moves (also during a stall: it falls to 0 about two seconds after the last
    /// byte, see ``DownloadManager/Configuration/ProgressReporting/interval``).
    public var bytesPerSecond: Double
    /// The time to receive the rest at the current speed, when the length and a speed are known.
    public var estimatedTimeRemaining: Duration?

    /// Creates a progress value.
    public init(
        bytesReceived: Int64, expectedBytes: Int64?, bytesPerSecond: Double = 0,
        estimatedTimeRemaining: Duration? = nil
    ) {
        self.bytesReceived = bytesReceived
        self.expectedBytes = expectedBytes
        self.bytesPerSecond = bytesPerSecond
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }

    /// The part received, from 0 to 1, when the length is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(bytesReceived) / Double(expectedBytes))
    }

    public var description: String {
        let total = expectedBytes.map { "/\($0)" } ?? ""
        return "\(bytesReceived)\(total) bytes, \(Int(bytesPerSecond)) B/s"
    }
}
