import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Download {
    /// What the download remembers of its failures in this run, to recover from the next.
    struct RecoveryMemory: Sendable {
        /// The sources that failed in this run, each with its failure, in the order they failed.
        var failedSources: [(index: Int, failure: DownloadError.URLFailure)] = []
        /// Fresh URLs asked for since the download last received a byte. (In 32 bits, beside the
        /// flag: every download has this memory.)
        var refreshesWithoutProgress: Int32 = 0
        /// A server answered a segment's range with its whole file: the file comes over one
        /// connection.
        var rangesRefused = false
        /// The bytes the download had when it last asked for a fresh URL.
        var bytesAtLastRefresh: Int64 = -1
    }

    /// A request of the running attempt `attempt` failed with `error`: asks for a fresh URL if the
    /// URL was refused, else decides how to recover (see ``decideRecovery(after:)``).
    func recover(_ attempt: Int, from error: DownloadError, response: ServerResponse?) {
        if let handler = settings.urlRefresh.handler, let rejected = refreshableRejection(error, response: response) {
            Task {
                let url = await handler(rejected)
                self.urlRefreshed(attempt, after: error, with: url)
            }
            return
        }
        let (error, recovery) = decideRecovery(after: error)
        handle(machine.attemptEnded(attempt, .failed(error), recovery: recovery))
    }

    /// How to go on after `error`: wait for the network if there is none; else retry if the
    /// retry policy says so; else continue from the next URL that has not failed in this run;
    /// else fail (with every URL's failure, when the request has mirrors). Switching to the next URL
    /// happens here, before the machine takes the failure.
    func decideRecovery(after error: DownloadError) -> (DownloadError, Recovery) {
        let url = sources.current
        switch settings.engine.failureRecovery.verdict(after: error, from: url, retry: Int(machine.retries) + 1) {
        case .waitForNetwork: return (error, .waitForNetwork)
        case .retry(let delay): return (error, .retry(after: delay))
        case .none: break
        }
        guard sources.count > 1, Self.isFailureOfTheURL(error) else { return (error, .none) }
        recoveryMemory.failedSources.append((sources.index, DownloadError.URLFailure(url: url, error: error)))
        guard let next = sources.next(excluding: Set(recoveryMemory.failedSources.map(\.index))) else {
            return (.allURLsFailed(recoveryMemory.failedSources.map(\.failure)), .none)
        }
        sources.select(next)
        sourcesChanged()
        return (error, .switchURL)
    }

    /// Whether another URL of the file may not fail the same way: the server's answer or the
    /// connection failed, not the disk, the request or the file.
    static func isFailureOfTheURL(_ error: DownloadError) -> Bool {
        switch error.kind {
        case .httpStatus, .network, .unexpectedResponse, .redirectRefused: true
        default: false
        }
    }

    /// What to ask the URL-refresh handler, if `error` is a refusal of the URL it may mend and it
    /// may still be asked.
    private func refreshableRejection(_ error: DownloadError, response: ServerResponse?) -> RejectedURL? {
        let settings = settings.urlRefresh
        guard error.kind == .httpStatus, let status = error.statusCode, settings.statusCodes.contains(status)
        else { return nil }
        let bytes = currentProgress.bytesReceived
        if bytes != recoveryMemory.bytesAtLastRefresh {
            recoveryMemory.bytesAtLastRefresh = bytes
            recoveryMemory.refreshesWithoutProgress = 0
        }
        guard recoveryMemory.refreshesWithoutProgress < settings.maximumAttempts else { return nil }
        recoveryMemory.refreshesWithoutProgress += 1
        let url = sources.current
        return RejectedURL(
            downloadID: id, originalURL: request.url ?? url, url: url,
            response: response ?? ServerResponse(url: url, statusCode: status, headers: [:]),
            metadata: request.metadata)
    }

    /// The URL-refresh handler answered: with a URL, the download continues from it (also kept
    /// for later if the download was paused meanwhile); without one, the refusal takes its course.
    private func urlRefreshed(_ attempt: Int, after error: DownloadError, with url: URL?) {
        guard let url, DownloadRequest.problem(with: url) == nil else {
            if case .ended(let action) = machine.stepFinished(attempt, otherwise: .failed(error)) {
                handle(action)
                return
            }
            let (error, recovery) = decideRecovery(after: error)
            handle(machine.attemptEnded(attempt, .failed(error), recovery: recovery))
            return
        }
        if url != sources.current {
            sources.replaceCurrent(with: url)
            sourcesChanged()
        }
        handle(machine.attemptEnded(attempt, .failed(error), recovery: .switchURL))
    }

    /// Waits for the network (wait number `wait`, after `error`; for one its policy allows, when
    /// the system held the request back for it), at most as long as the settings say, off the
    /// actor.
    func waitForNetwork(_ wait: Int, after error: DownloadError) {
        let policy = error.networkUnavailableReason
        let monitor = settings.engine.networkMonitor
        let url = sources.current
        let clock = settings.engine.clock
        let limit = settings.maximumNetworkWait
        let timer = Task { [weak self] in
            let isBack = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    if let policy {
                        await monitor.waitUntilReachable(url, despite: policy)
                    } else {
                        await monitor.waitUntilReachable(url)
                    }
                    return !Task.isCancelled
                }
                if let limit {
                    group.addTask {
                        try? await clock.sleep(for: limit)
                        return false
                    }
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            guard !Task.isCancelled else { return }
            await self?.networkWaitEnded(wait, isNetworkBack: isBack, after: error)
        }
        machine.timerStarted(timer, forNetworkWait: wait)
    }

    private func networkWaitEnded(_ wait: Int, isNetworkBack: Bool, after error: DownloadError) {
        let timeout = DownloadError.networkUnavailable(for: settings.maximumNetworkWait ?? .zero, lastError: error)
        handle(machine.networkWaitEnded(wait, isNetworkBack: isNetworkBack, timeout: timeout))
    }
}
