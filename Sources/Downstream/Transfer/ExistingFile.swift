/// A file at the destination that a download may continue: another program's partial file.
struct ExistingFile: Equatable, Sendable {
    var path: String
    /// Its length when it was looked at: where the request continues it.
    var length: Int64
    /// Whether the file may be the whole file: false when it has not the request's expected
    /// digest (then a file as long as the server's is not the download's).
    var mayBeWhole: Bool
}
