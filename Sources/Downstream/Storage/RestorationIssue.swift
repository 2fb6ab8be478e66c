import Foundation

/// A stored record that could not be restored: ``DownloadManager/RestorationIssue``, in
/// ``DownloadManager/restorationIssues``.
public struct RestorationIssue: Sendable, Hashable, CustomStringConvertible {
    /// Where the record is now: renamed aside in the store (`.corrupt` for a damaged record,
    /// `.unsupported` for one written by a newer version of Downstream, `.refused` for one that is
    /// not to be obeyed: others could have written it, or it names a partial file where Downstream
    /// puts none), so that it is not
    /// read again and can be inspected; left in place when it names its files relative to a
    /// directory the configuration does not name this time
    /// (``DownloadManager/Configuration-swift.struct/Storage-swift.struct/relocatableDirectories``),
    /// or to the home directory in a process that has none (on Linux, `HOME` unset and a uid
    /// without an entry in the password database).
    public let recordURL: URL
    /// Why it could not be restored.
    public let reason: String

    public var description: String {
        "\(recordURL.lastPathComponent): \(reason)"
    }
}
