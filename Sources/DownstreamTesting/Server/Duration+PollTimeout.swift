extension Duration {
    /// The duration in whole milliseconds, rounded up and clamped to `Int32`, as `poll`
    /// takes it; 0 for negative durations.
    var pollTimeout: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return .max }
        let rounded = milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: rounded)
    }
}
