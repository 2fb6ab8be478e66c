import Foundation

/// A stored record that could not be restored: ``DownloadManager/RestorationIssue``, in
/// ``DownloadManager/restorationIssues``.
public struct RestorationIssue: Sendable, Hashable, CustomStringConvertible {
    /// Where the record is now: renamed aside in the store (`.corrupt` for a damaged record,
    /// `.unsupported` for one written by a newer version of Downstream), so that it is not
    /// read again and can be inspected.
    public let recordURL: URL
    /// Why it could not be restored.
    public let reason: String

    public var description: String {
        "\(recordURL.lastPathComponent): \(reason)"
    }
}
