import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a download tells whoever runs it (its manager): its events, progress values and states,
/// whether it needs a slot, its requests and responses; and what it asks of it: the handlers to
/// run when it completes.
///
/// A download calls its observer after releasing its own locks, from where the thing happened
/// (the download's actor, the transport's thread, a timer): implementations must be quick
/// and must never wait.
protocol DownloadObserver: Sendable {
    /// `download` published `event` (its own subscribers have it already).
    func download(_ download: Download, didPublish event: DownloadEvent)
    /// `download` published a progress value. Two threads may publish at once (the transport's
    /// thread and the trailing-publish timer) and their values arrive in either order:
    /// a value whose sequence is not above that of one already taken is stale.
    func download(_ download: Download, didProgress update: Download.ProgressUpdate)
    /// `download` is in `state` now (``Download/state`` reads it already). From the download's
    /// actor, in order.
    func download(_ download: Download, didChangeStateTo state: DownloadState)
    /// `download` waits for a slot, holds one or needs none (`need`), at `priority`: sent in the
    /// order of the changes, to be applied in that order.
    func download(
        _ download: Download, didChangeSlotNeed need: Download.SlotNeed,
        priority: DownloadRequest.Priority)
    /// Up to `count` more connections for running `download` (a file over several), as the
    /// manager's limits allow now; each counts as a running download until given back.
    func connections(for download: Download, upTo count: Int) async -> Int
    /// `download` gives back the connections it was given.
    func downloadReturnsConnections(_ download: Download)
    /// A request of `download` is about to be sent, with the headers Downstream set.
    func download(_ download: Download, willSend request: URLRequest)
    /// A response to a request of `download` arrived (its head).
    func download(_ download: Download, didReceive response: ServerResponse)
    /// What a download runs when it completes, once its file is in place: in order, each awaited.
    var completionHandlers: [Download.CompletionHandler] { get }
}

extension Download {
    /// A progress value as the download published it, numbered: of two values of one download,
    /// the one with the higher sequence is the newer.
    struct ProgressUpdate: Sendable {
        var progress: DownloadProgress
        var sequence: UInt64
    }

    /// Something to run when a download completes, with the download and its file.
    typealias CompletionHandler = @Sendable (Download, URL) async -> Void
}
