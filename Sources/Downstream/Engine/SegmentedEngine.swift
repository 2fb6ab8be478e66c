import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engine of several connections: the file's segments (``SegmentMap``), one per connection
/// at a time, over the ranged transport (``SegmentedTransfer``). The connections past the
/// download's own are borrowed from the manager, and count against its limits as downloads do.
struct SegmentedEngine: AttemptEngine {
    var transport: any Transport
    var map: SegmentMap

    func run(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        let wanted = min(target.segmentation.connections, map.usefulConnections) - 1
        guard wanted > 0 else {
            return start(attempt, of: target, in: running, connections: 1, onEnd: onEnd)
        }
        Task {
            let extra = await target.borrowConnections(wanted)
            FileWork.run { start(attempt, of: target, in: running, connections: 1 + extra, onEnd: onEnd) }
        }
    }

    /// Runs the attempt over `connections` connections; gives the borrowed ones back at its end.
    private func start(
        _ attempt: Attempt, of target: AttemptTarget, in running: RunningAttempt, connections: Int,
        onEnd: @escaping @Sendable (AttemptEnd) -> Void
    ) {
        let ended: @Sendable (AttemptEnd) -> Void = { ending in
            if connections > 1 { target.returnConnections() }
            onEnd(ending)
        }
        let url = attempt.url
        var record = target.recordFile.resume(startingOverFrom: url)
        let isNewURL = record.url != url
        if isNewURL {
            // A validator of another URL means nothing here: no `If-Range`, the overlaps decide.
            record.validator = Validator()
        }
        // Each connection's request gets credentials of its own.
        let urlRequest = target.baseRequest(to: url, adapted: attempt.adaptedHeaders, credentials: .none)
        do throws(DownloadError) {
            try target.preparePlaces()
            // Only the bytes from the first on, with no gap, can be hashed: the saved digest goes
            // on from where it is, the transfer's checkpoints catch it up as the prefix grows.
            let algorithm = target.digestAlgorithm(of: record)
            let saved = record.digest.map { $0.algorithm == algorithm ? $0.length : 0 } ?? 0
            record.digest = try target.continuedDigest(of: &record, upTo: min(saved, map.durablePrefix))
        } catch {
            return ended(.notSent(error))
        }
        let settings = target.settings
        let setup = SegmentedTransfer.Setup(
            url: url, request: urlRequest, record: record, recordFile: target.recordFile,
            partialPath: target.partialPath, map: map, connections: connections,
            maximumBytesPerRequest: settings.maximumBytesPerRequest, announcesResume: attempt.kind == .first,
            onServerFileChange: target.request.onServerFileChange, overlapLength: Int64(settings.overlapLength),
            isNewURL: isNewURL, settings: settings.transfer, recovery: settings.failureRecovery,
            clock: settings.clock, downloadID: target.downloadID, credentials: attempt.credentials,
            answersChallenges: attempt.answersChallenges, previousChallenges: attempt.previousChallenges)
        target.willSend(urlRequest)
        let transfer = SegmentedTransfer(
            setup, transport: transport, progress: target.progress, publish: target.publish,
            observeResponse: target.didReceive,
            onEnd: { ending in
                ended(
                    AttemptEnd(transferEnd: ending.end, response: ending.response, rangesRefused: ending.rangesRefused))
            })
        // Paused or cancelled while the manager was asked: the attempt ends before it began.
        if !running.launch(transfer, start: transfer.start) { ended(AttemptEnd(transferEnd: .cancelled)) }
    }
}
