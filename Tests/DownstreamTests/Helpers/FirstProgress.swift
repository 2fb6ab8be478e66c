@testable import Downstream
import Foundation

/// An event monitor that tells the first progress value of any download that matches: it sees
/// every value, on its own queue, where a task reading `Download.progress` late (a loaded machine
/// starves tasks) sees only the newest.
final class FirstProgress: DownloadEventMonitor {
    private let matches: @Sendable (DownloadProgress) -> Bool
    private let found = Locked(false)
    private let values: AsyncStream<DownloadProgress>
    private let continuation: AsyncStream<DownloadProgress>.Continuation

    init(where matches: @escaping @Sendable (DownloadProgress) -> Bool) {
        self.matches = matches
        (values, continuation) = AsyncStream.makeStream()
    }

    func download(_ download: Download, didProgress progress: DownloadProgress) {
        guard matches(progress), !found.withLock({ $0 }) else { return }
        found.withLock { $0 = true }
        continuation.yield(progress)
    }

    /// The first value that matched, once one did.
    func value() async -> DownloadProgress? {
        var iterator = values.makeAsyncIterator()
        return await iterator.next()
    }
}
