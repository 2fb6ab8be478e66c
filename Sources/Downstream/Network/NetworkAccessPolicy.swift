import Foundation

/// The manager's network access, which the app may change while downloads run
/// (``DownloadManager/setNetworkAccess(_:)``), and what it makes of a request's own: read when a
/// download starts and for each request it sends.
final class NetworkAccessPolicy: Sendable {
    private let current: Locked<NetworkAccess>

    init(_ access: NetworkAccess) {
        current = Locked(access)
    }

    /// The manager's network access now.
    var access: NetworkAccess {
        current.value
    }

    /// Replaces the manager's network access.
    func set(_ access: NetworkAccess) {
        current.withLock { $0 = access }
    }

    /// What a request whose own settings are `request` may use: each of its settings that is
    /// not nil, else the manager's.
    func effective(for request: NetworkAccess) -> NetworkAccess {
        request.isDefault ? access : request.over(access)
    }

    /// The policy of `access` that forbids the network requests to `url` would go out on now,
    /// as far as `monitor` knows; nil when it forbids none (or the monitor cannot tell).
    static func refusal(
        of url: URL, by access: NetworkAccess, monitor: any NetworkMonitor
    ) -> NetworkUnavailableReason? {
        access.forbidden.first { monitor.isForbidden(url, by: $0) == true }
    }
}

extension NetworkAccess {
    /// These settings, with `base`'s where these are nil.
    func over(_ base: NetworkAccess) -> NetworkAccess {
        NetworkAccess(
            allowsCellular: allowsCellular ?? base.allowsCellular,
            allowsExpensive: allowsExpensive ?? base.allowsExpensive,
            allowsConstrained: allowsConstrained ?? base.allowsConstrained)
    }

    /// The policies these settings forbid: one for each setting that is false.
    var forbidden: [NetworkUnavailableReason] {
        var reasons: [NetworkUnavailableReason] = []
        if allowsCellular == false { reasons.append(.cellular) }
        if allowsExpensive == false { reasons.append(.expensive) }
        if allowsConstrained == false { reasons.append(.constrained) }
        return reasons
    }
}
