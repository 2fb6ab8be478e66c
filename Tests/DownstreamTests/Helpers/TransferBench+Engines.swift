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
            networkMonitor: FixedNetwork(isUp: true), clock: ContinuousClock())
        change(&settings)
        let location = PartialLocation(path: partialPath)
        let id = recordFile.record.id
        let progress = self.progress
        return AttemptTarget(
            downloadID: id,
            request: DownloadRequest(url: url, to: .file(destination ?? directory.appendingPathComponent("file.bin"))),
            location: location, recordFile: recordFile, settings: settings, progress: progress, publish: { _ in },
            willSend: willSend, didReceive: { _ in }, borrowConnections: borrow, returnConnections: returned)
    }
}

extension TransferBench {
    /// Starts a segmented transfer of the bench's file as `map` splits it, over `connections`
    /// connections; returns it with the stream of its ends.
    func startSegmented(
        _ map: SegmentMap, connections: Int, clock: any Clock<Duration> = ContinuousClock(),
        retryPolicy: RetryPolicy = RetryPolicy(), network: any NetworkMonitor = FixedNetwork(isUp: true)
    ) -> (SegmentedTransfer, AsyncStream<SegmentedTransfer.Ending>) {
        let setup = SegmentedTransfer.Setup(
            url: url, request: URLRequest(url: url), record: recordFile.record.resume,
            recordFile: recordFile, partialPath: partialPath, map: map, connections: connections,
            maximumBytesPerRequest: nil, announcesResume: true, onServerFileChange: .restart, overlapLength: 0,
            isNewURL: false, settings: Self.settings(),
            recovery: FailureRecovery(retryPolicy: retryPolicy, networkMonitor: network), clock: clock,
            downloadID: recordFile.record.id)
        let (ends, reported) = AsyncStream.makeStream(of: SegmentedTransfer.Ending.self)
        let transfer = SegmentedTransfer(
            setup, transport: transport, progress: progress, publish: { _ in }, onEnd: { reported.yield($0) })
        transfer.start()
        return (transfer, ends)
    }
}

/// A network that is there or not, as the test says, and never comes back by itself.
struct FixedNetwork: NetworkMonitor {
    var isUp: Bool

    func isReachable(_ url: URL) -> Bool { isUp }

    func waitUntilReachable(_ url: URL) async {
        guard !isUp else { return }
        // Until the wait is cancelled: this network does not come back.
        let (never, continuation) = AsyncStream<Never>.makeStream()
        for await _ in never {}
        withExtendedLifetime(continuation) {}
    }
}
