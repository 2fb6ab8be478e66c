import Foundation

/// A network monitor that asks a probe whether there is a network, and while a download waits,
/// asks again after 1, 2, 4… seconds (at most ``maximumInterval``), or at once when told that the
/// network changed (``networkChanged()``).
final class ProbingNetworkMonitor: NetworkMonitor {
    /// The longest time between two probes while someone waits.
    let maximumInterval: Duration
    private let firstInterval: Duration
    private let probe: @Sendable (URL, NetworkUnavailableReason?) -> Bool
    private let clock: any Clock<Duration>
    private let changes = ChangeSignal()

    /// - Parameters:
    ///   - probe: whether requests to a URL can leave the device now (on a network that the
    ///     policy, if one is given, does not forbid); fast, without network traffic.
    ///   - clock: the clock of the intervals between probes.
    init(
        clock: any Clock<Duration>, firstInterval: Duration = .seconds(1), maximumInterval: Duration = .seconds(30),
        probe: @escaping @Sendable (URL, NetworkUnavailableReason?) -> Bool
    ) {
        self.clock = clock
        self.firstInterval = firstInterval
        self.maximumInterval = max(maximumInterval, firstInterval)
        self.probe = probe
    }

    func isReachable(_ url: URL) -> Bool {
        probe(url, nil)
    }

    func isReachable(_ url: URL, despite policy: NetworkUnavailableReason) -> Bool {
        probe(url, policy)
    }

    /// The probe knows the kinds of networks: a network that is there but not despite `policy` is
    /// one `policy` forbids. (Linux's system probe does not tell them apart: it forbids none.)
    func isForbidden(_ url: URL, by policy: NetworkUnavailableReason) -> Bool? {
        probe(url, nil) && !probe(url, policy)
    }

    /// The network may have changed: probe now.
    func networkChanged() {
        changes.notify()
    }

    func waitUntilReachable(_ url: URL) async {
        await waitUntil { probe(url, nil) }
    }

    func waitUntilReachable(_ url: URL, despite policy: NetworkUnavailableReason) async {
        await waitUntil { probe(url, policy) }
    }

    private func waitUntil(_ isReachable: () -> Bool) async {
        var interval = firstInterval
        while !Task.isCancelled {
            // Registered before the probe: a change reported while it runs is not missed.
            let change = changes.register()
            guard !isReachable() else {
                changes.unregister(change)
                return
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [clock, interval] in try? await clock.sleep(for: interval) }
                group.addTask { [changes] in await changes.wait(change) }
                await group.next()
                group.cancelAll()
            }
            interval = min(interval * 2, maximumInterval)
        }
    }

    /// Whether `url` names this device: `localhost`, `127.0.0.0/8` or `::1`.
    static func isLoopback(_ url: URL) -> Bool {
        guard var host = url.host?.lowercased() else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
    }
}

extension ProbingNetworkMonitor {
    /// The system's monitor: the network path on Apple platforms, the network interfaces on
    /// Linux. Loopback hosts are always reachable.
    static func system(clock: any Clock<Duration>) -> ProbingNetworkMonitor {
        #if canImport(Network)
            let path = SystemNetworkPath()
            let monitor = ProbingNetworkMonitor(clock: clock) { url, policy in
                isLoopback(url) || (path.isSatisfied && policy.map(path.allows) ?? true)
            }
            path.onChange = { [weak monitor] in monitor?.networkChanged() }
            return monitor
        #else
            // Linux has no network policies: any network will do.
            return ProbingNetworkMonitor(clock: clock) { url, _ in
                isLoopback(url) || NetworkInterfaces.hasUsableInterface()
            }
        #endif
    }
}
