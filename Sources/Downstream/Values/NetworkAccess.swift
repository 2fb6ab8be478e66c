import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which networks a download may use: Apple platforms' network policies for one request
/// (`URLRequest.allowsCellularAccess`, `allowsExpensiveNetworkAccess`,
/// `allowsConstrainedNetworkAccess`). Each is nil by default: the manager's setting applies
/// (``DownloadManager/networkAccess``, which the app may change while downloads run), and where
/// that is nil too, the session's (``DownloadManager/Configuration-swift.struct/Background-swift.struct``
/// for a background session; every network for the others).
///
/// A request the system holds back for its policy (on cellular, with cellular access denied, say)
/// fails with an error whose ``DownloadError/networkUnavailableReason`` says which policy: the
/// download waits for the network (``DownloadState/waitingForNetwork``) instead of failing, and
/// continues once the manager's ``NetworkMonitor`` sees a network the policy allows. Where the
/// monitor knows the kind of the network (``NetworkMonitor/isForbidden(_:by:)``), the download
/// does not even start on a forbidden one. Linux has no such policies, and its system monitor does
/// not tell networks apart: there these settings change nothing, unless the app gives a monitor
/// that does.
public struct NetworkAccess: Sendable, Hashable {
    /// Whether the download may use a cellular network; nil: the session's setting.
    public var allowsCellular: Bool?
    /// Whether it may use a network the system considers expensive (cellular, a personal
    /// hotspot); nil: the session's setting.
    public var allowsExpensive: Bool?
    /// Whether it may use a network in Low Data Mode; nil: the session's setting.
    public var allowsConstrained: Bool?

    /// Network access as the session allows it, changed by the values given.
    public init(allowsCellular: Bool? = nil, allowsExpensive: Bool? = nil, allowsConstrained: Bool? = nil) {
        self.allowsCellular = allowsCellular
        self.allowsExpensive = allowsExpensive
        self.allowsConstrained = allowsConstrained
    }

    /// Whether every setting is the session's.
    var isDefault: Bool { self == NetworkAccess() }

    /// Sets the policies that are not the session's on `request`, where the platform has them.
    func apply(to request: inout URLRequest) {
        if let allowsCellular {
            request.allowsCellularAccess = allowsCellular
        }
        #if canImport(Darwin)
            if let allowsExpensive {
                request.allowsExpensiveNetworkAccess = allowsExpensive
            }
            if let allowsConstrained {
                request.allowsConstrainedNetworkAccess = allowsConstrained
            }
        #endif
    }
}
