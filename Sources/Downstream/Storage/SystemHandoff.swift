/// The remainder of a download handed to the system: the ranged request its system task asked
/// for, kept in the download's record so that the file the system finishes with is checked the
/// same way in this process or after a relaunch (an adopted task).
///
/// The system's file is the answer's body, from ``firstByte``: it is appended to the partial file
/// only once its `Content-Range`, validators and the ``overlap`` bytes before ``offset`` prove it
/// is the rest of the file the partial file holds.
struct SystemHandoff: Codable, Equatable, Sendable {
    /// Where the remainder starts: the partial file's length when it was handed over.
    var offset: Int64
    /// The bytes before ``offset`` asked for again, to be compared with the partial file's.
    var overlap: Int64
    /// The validator the request sent as `If-Range` (empty when none could guard the range).
    var validator: Validator
    /// The file's full length as the record knew it, if known.
    var expectedLength: Int64?

    /// The first byte the request asked for.
    var firstByte: Int64 { offset - overlap }
}
