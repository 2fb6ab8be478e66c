#if canImport(Network)
    import Dispatch
    import Network

    /// The system's network path (Apple platforms): whether it is satisfied, and a call when it
    /// changes. The only Apple-specific part of network monitoring: what it feeds is
    /// ``ProbingNetworkMonitor``, which is tested on every platform.
    final class SystemNetworkPath: @unchecked Sendable {
        // Safe: NWPathMonitor may be used from any thread; the change handler is under a lock.
        private let monitor = NWPathMonitor()
        private let handler = Locked<(@Sendable () -> Void)?>(nil)

        init() {
            monitor.pathUpdateHandler = { [handler] _ in handler.value?() }
            monitor.start(queue: DispatchQueue(label: "Downstream.network-path"))
        }

        deinit {
            monitor.cancel()
        }

        /// Called on a queue of the monitor's when the path changes.
        var onChange: (@Sendable () -> Void)? {
            get { handler.value }
            set { handler.withLock { $0 = newValue } }
        }

        var isSatisfied: Bool {
            monitor.currentPath.status == .satisfied
        }

        /// Whether the current path is one that `policy` does not forbid.
        func allows(_ policy: NetworkUnavailableReason) -> Bool {
            let path = monitor.currentPath
            switch policy.code {
            case .cellular: return !path.usesInterfaceType(.cellular)
            case .expensive: return !path.isExpensive
            case .constrained: return !path.isConstrained
            }
        }
    }
#endif
