extension DownloadManager.Configuration {
    /// How downloads check the files they deliver, beyond the digest a request expects
    /// (``DownloadRequest/expectedDigest``).
    ///
    /// Many servers say what their file's digest is: object stores (`x-goog-hash`,
    /// `x-amz-checksum-sha256`, the MD5 in an S3 `ETag`), servers of RFC 9530 (`Repr-Digest`,
    /// `Content-Digest`) and RFC 3230 (`Digest`), `Content-MD5`. A download whose request expects
    /// no digest computes the strongest one its server gives while the file is written (across
    /// pauses, resumes and relaunches, in constant memory, as for an expected digest), and fails
    /// with ``DownloadError/Kind/integrityCheckFailed`` when the file does not have it; the bytes
    /// are then deleted or kept as ``DownloadRequest/onRejectedFile`` says; the error's reason names
    /// the header (`the server's Repr-Digest says SHA-256 …, the file has …`).
    ///
    /// A digest is only taken from a response when it describes the whole file: never from a
    /// compressed body, and from a `206 Partial Content` of a part of the file only in headers
    /// that describe the whole file (`Repr-Digest`, `x-goog-hash`, an S3 `ETag`), never in those
    /// of the part (`Content-Digest`, `Content-MD5`, and `Digest`, which servers disagree on). An
    /// S3 `ETag` counts only on an answer of S3 (`x-amz-request-id`, or `Server: AmazonS3`), of an
    /// object that is neither a multipart upload's nor encrypted with KMS or a customer's key.
    /// The digest is kept with the partial file; a continued request whose answer gives another
    /// value of the same algorithm is of another file: the download starts over (or fails, as
    /// ``DownloadRequest/onServerFileChange`` says), even when the validators did not change.
    ///
    /// Downloads of a background session are checked too, their file read once the system
    /// handed it over.
    public struct Integrity: Sendable {
        /// Whether downloads check their files against the digests their servers give, when
        /// their requests expect none. Default: true. False ignores every such header.
        public var verifiesServerDigests = true

        /// Default integrity settings.
        public init() {}
    }
}
