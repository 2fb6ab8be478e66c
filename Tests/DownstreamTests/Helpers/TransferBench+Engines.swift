@testable import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransferBench {
    /// What a download gives its engines, for this bench's record and partial file, its file at
    /// `destination` (by default `file.bin` in the bench's directory).
    func target(
        destination: URL? = nil, engine change: (inout EngineSettings) -> Void = { _ in },
        willSend: @escaping @Sendable (URLRequest) -> Void = { _ in },
        borrow: @escaping @Sendable (Int) async -> Int = { _ in 0 }, returned: @escaping @Sendable () -> Void = {}
    ) -> AttemptTarget {
        var settings = EngineSettings(
            transfer: Self.settings(), maximumBytesPerRequest: nil, overlapLength: 0, retryPolicy: RetryPolicy(),
            clock: ContinuousClock())
        change(&settings)
        let location = PartialLocation(path: partialPath)
        let id = recordFile.record.id
        let progress = self.progress
        return AttemptTarget(
            downloadID: id,
            request: DownloadRequest(url: url, to: .file(destination ?? directory.appendingPathComponent("file.bin"))),
            location: location, recordFile: recordFile, settings: settings, progress: progress, publish: { _ in },
            willSend: willSend, didReceive: { _ in }, borrowConnections: borrow, returnConnections: returned,
            systemTarget: SystemTransfer.Target(
                downloadID: id, partialURL: location.partialURL, recordFile: recordFile, progress: progress,
                publish: { _ in }, notify: { _ in }))
    }
}
