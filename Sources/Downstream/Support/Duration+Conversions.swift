import Dispatch

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration as a Dispatch interval, rounded down to whole nanoseconds.
    var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000))
    }
}
