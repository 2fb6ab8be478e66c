extension DownloadManager.Configuration {
    /// How a download makes sure that the bytes it continues are of the same file.
    ///
    /// A validator says what to ask for; the bytes say what to believe. A request that continues a
    /// partial file carries `If-Range` with the strong `ETag` (or the `Last-Modified` date) the
    /// server gave with the first bytes, so that a server whose file visibly changed answers with
    /// the whole new file instead of a range of it. Validators alone prove little: real servers
    /// derive them from the file's modification time and size (nginx's strong ETag, Apache's
    /// default), which a replaced file keeps after `cp -p`, `rsync -a`, `touch -r` or a
    /// reproducible build; many servers send none; a proxy that compresses makes strong ETags weak;
    /// and a validator of one server means nothing to another (a mirror, a refreshed signed URL).
    /// So every continuation — after a pause, a retry, a relaunch, a new URL, and between the
    /// ranges of a file that comes in several requests — asks for ``overlapLength`` bytes before
    /// the resume point again and compares them with the bytes on disk before a single byte is
    /// written: bytes that differ mean the server's file changed, and the download starts over (or
    /// fails, as ``DownloadRequest/onServerFileChange`` says). The file's length must be the same
    /// too.
    ///
    /// What it cannot see: a change that leaves those bytes and the length as they were (an edit
    /// further back in a file of the same size), and a change during one response. Give the request
    /// an ``DownloadRequest/expectedDigest`` to be sure of every byte; a digest the server sends
    /// with the file is checked too.
    public struct Resumption: Sendable {
        /// How many bytes before the resume point every continuing request asks for again and
        /// compares; at most the bytes on disk. 0 turns the comparison off (bytes are then
        /// appended on the validator's and the length's word alone). Default: 64 KiB, about a
        /// millisecond of a 500 Mbit/s link per continuation.
        public var overlapLength = 64 << 10

        /// Default resumption settings.
        public init() {}
    }
}
