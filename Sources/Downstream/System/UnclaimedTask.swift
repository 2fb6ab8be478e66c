import Foundation

/// A download task of the background session that no download claims:
/// ``DownloadManager/UnclaimedTask``, in ``DownloadManager/unclaimedTasks``.
///
/// Its record is gone, or it is a second task of a download. A finished task's file is kept (in
/// `unclaimed` in the store) for the app to look at; a running one is cancelled.
public struct UnclaimedTask: Sendable, Hashable, CustomStringConvertible {
    /// The task's identifier in its session.
    public let taskIdentifier: Int
    /// The task's description: the identifier of the download it was made for.
    public let taskDescription: String?
    /// The URL the task got its response from, if it got one.
    public let url: URL?
    /// Where the task's file was kept, if it finished.
    public let keptFile: URL?
    /// What happened, in words.
    public let reason: String

    public var description: String {
        "task \(taskIdentifier) (\(taskDescription ?? "no description")): \(reason)"
    }
}
