import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Download {
    /// The network access the download's requests carry: its request's settings over its
    /// manager's.
    var networkAccess: NetworkAccess {
        settings.engine.networkAccess.effective(for: request.networkAccess)
    }

    /// Why the download may not use the network requests to its URL would go out on now, as the
    /// error it waits for the network after; nil when its network access allows that network (or
    /// the monitor cannot tell).
    func networkRefusal() -> DownloadError? {
        let access = networkAccess
        guard !access.forbidden.isEmpty,
            let reason = NetworkAccessPolicy.refusal(
                of: sources.current, by: access, monitor: settings.engine.networkMonitor)
        else { return nil }
        return .network(
            .notConnectedToInternet, reason: "the network there is may not be used: \(reason)",
            unavailableReason: reason)
    }

    /// The scheduler gave the download a slot: it starts, unless its network access forbids the
    /// network there is; then it waits for an allowed one.
    func startOrWaitForNetwork() {
        if case .queued = machine.state, let refusal = networkRefusal() {
            handle(machine.networkRefused(refusal))
        } else {
            handle(machine.start())
        }
    }

    /// Its manager's network access changed: a running download on a network it may no longer
    /// use stops and waits for an allowed one (spending no retry, keeping its bytes); one waiting
    /// for a network its policy forbade goes back to the queue if that policy is lifted.
    func networkAccessChanged() {
        if let refusal = networkRefusal() {
            handle(machine.networkRefused(refusal))
            return
        }
        guard case .waitingForNetwork(let wait, let error, let timer) = machine.state,
            let reason = error.networkUnavailableReason, !networkAccess.forbidden.contains(reason)
        else { return }
        timer?.cancel()
        handle(machine.networkWaitEnded(wait, isNetworkBack: true, timeout: error))
    }
}
