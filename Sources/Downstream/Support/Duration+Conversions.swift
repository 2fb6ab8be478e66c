import Dispatch

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration as a Dispatch interval, rounded down to whole nanoseconds, or to the finest
    /// unit whose count fits an `Int`: watchOS's has 32 bits, where nanoseconds end at 2.1 s and
    /// milliseconds at 24 days. Longer than `Int.max` seconds is `.never`.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        func count(perSecond: Int64) -> Int? {
            let whole = seconds.multipliedReportingOverflow(by: perSecond)
            let fraction = attoseconds / (1_000_000_000_000_000_000 / perSecond)
            let total = whole.partialValue.addingReportingOverflow(fraction)
            return whole.overflow || total.overflow ? nil : Int(exactly: total.partialValue)
        }
        if let nanoseconds = count(perSecond: 1_000_000_000) { return .nanoseconds(nanoseconds) }
        if let milliseconds = count(perSecond: 1000) { return .milliseconds(milliseconds) }
        if let seconds = count(perSecond: 1) { return .seconds(seconds) }
        return .never
    }
}
