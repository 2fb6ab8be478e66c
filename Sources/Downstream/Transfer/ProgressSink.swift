/// Where a transfer counts the bytes of its file, as they reach it. Called on the transfer's
/// queue, for every chunk: implementations must be cheap and must not wait.
protocol ProgressSink: Sendable {
    /// A response was accepted: the file has `bytesReceived` bytes, of `expectedBytes`.
    func begin(bytesReceived: Int64, expectedBytes: Int64?)
    /// `count` more bytes arrived.
    func add(_ count: Int64)
    /// The file now has `totalBytes` bytes (a system download task counts them itself), of
    /// `expectedBytes`.
    func update(totalBytes: Int64, expectedBytes: Int64?)
}
