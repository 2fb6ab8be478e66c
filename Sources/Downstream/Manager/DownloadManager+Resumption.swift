extension DownloadManager.Configuration {
    /// How a download makes sure that the bytes it continues are of the same file.
    ///
    /// A request that continues a partial file carries `If-Range` with the strong `ETag` (or the
    /// `Last-Modified` date) the server gave with the first bytes: a server whose file changed
    /// answers with the whole new file instead of a range of it. Many servers send neither (files
    /// made on the fly, some object stores), a proxy that compresses makes strong ETags weak, and a
    /// validator of one server means nothing to another (a mirror, a refreshed signed URL). Then the
    /// request asks for ``overlapLength`` bytes before the resume point again, and compares them
    /// with the bytes on disk before a single byte is written: bytes that differ mean the server's
    /// file changed, and the download starts over (or fails, as
    /// ``DownloadRequest/onServerFileChange`` says). The file's length must be the same too.
    ///
    /// What it cannot see: a change that leaves those bytes and the length as they were (an edit
    /// further back in a file of the same size). Give the request an
    /// ``DownloadRequest/expectedDigest`` to be sure of every byte.
    public struct Resumption: Sendable {
        /// How many bytes before the resume point a continuing request asks for again and
        /// compares, when no validator of the same URL guards it; at most the bytes on disk.
        /// 0 turns the comparison off (bytes are then appended on the length's word alone).
        /// Default: 64 KiB, about a millisecond of a 500 Mbit/s link per resume.
        public var overlapLength = 64 << 10

        /// Default resumption settings.
        public init() {}
    }
}
