import Foundation

/// What a later attempt needs to resume a partial file safely; part of the download's
/// ``StoredDownload`` record.
///
/// The record says which file the partial belongs to (URL and validator), how long that file
/// is, how many bytes were on disk when it was written, and the name the server suggested.
/// The partial file's real length wins over ``durableLength`` when resuming: bytes are only
/// appended, and the validator guards against a file that changed on the server.
struct ResumeRecord: Codable, Equatable, Sendable {
    /// The URL the partial file's bytes and ``validator`` came from (before redirects): the
    /// request's, a mirror's, or a fresh one. A request to another URL compares the overlap
    /// instead of trusting the validator.
    var url: URL
    var validator = Validator()
    var expectedLength: Int64?
    /// Bytes of the partial file known to be written when the record was saved.
    var durableLength: Int64 = 0
    /// The file name the server suggested (`Content-Disposition`, else the final URL).
    var suggestedFileName: String?
    /// False when the partial file must not be continued: the server's answer cannot be resumed
    /// with a range (a compressed body), or a request that starts over was not answered yet.
    var isResumable = true
    /// The digest of the partial file's first `digest.length` bytes, when the request expects one
    /// or the server gave one (``serverDigest``).
    var digest: RunningDigest?
    /// The digest of the whole file that the server gave with the bytes the partial file holds,
    /// when server digests are checked: the file is checked against it when the request expects
    /// no digest, and a later response that gives another value means another file. Nil in
    /// records of older versions.
    var serverDigest: ServerDigest?
    /// The response whose body the partial file holds, for validators.
    var response: ServerResponse?
    /// For a file downloaded over several connections, each part's range and its bytes on the
    /// disk; the partial file may then be longer than its bytes (other parts' places), and a
    /// relaunch continues each part, not the file's end. ``durableLength`` is then the bytes
    /// on disk from the first byte with no gap (what ``digest`` may cover).
    var segments: [SavedSegment]?

    init(url: URL) {
        self.url = url
    }

    /// A record for `url` that says the partial file must not be continued: the next request
    /// starts from the first byte.
    static func startingOver(url: URL) -> ResumeRecord {
        var record = ResumeRecord(url: url)
        record.isResumable = false
        return record
    }
}

/// What a record keeps of one part of a file downloaded over several connections: the part's
/// range (`start..<end`) and how many of its bytes from `start` on are on the disk.
struct SavedSegment: Codable, Equatable, Sendable {
    var start: Int64
    var end: Int64
    var durable: Int64
}
