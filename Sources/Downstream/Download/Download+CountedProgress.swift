extension Download {
    /// What a download contributes to its observer's totals, as the observer counted it last:
    /// only the figures totals need. A manager keeps it in the download itself (in ``counted``),
    /// not in a map of its own: 100,000 downloads may be queued.
    struct CountedProgress: Sendable, Equatable {
        /// The sequence of the progress value counted: older ones are dropped.
        private(set) var sequence: UInt64
        private(set) var bytesReceived: Int64
        /// -1 when unknown.
        private(set) var expectedBytes: Int64
        /// In 32 bits (plenty for a speed), so that the whole takes 32 bytes, not 40. Added and
        /// taken away as the same value, so a sum of them stays exact.
        private(set) var bytesPerSecond: Float
        var state: DownloadState

        init(_ update: ProgressUpdate, state: DownloadState) {
            self.state = state
            sequence = 0
            bytesReceived = 0
            expectedBytes = -1
            bytesPerSecond = 0
            set(update)
        }

        /// This with `update` counted, or nil when `update` is older than the value counted.
        func updated(with update: ProgressUpdate) -> CountedProgress? {
            guard update.sequence > sequence else { return nil }
            var updated = self
            updated.set(update)
            return updated
        }

        private mutating func set(_ update: ProgressUpdate) {
            let progress = update.progress
            sequence = update.sequence
            bytesReceived = progress.bytesReceived
            expectedBytes = progress.expectedBytes ?? -1
            bytesPerSecond = Float(progress.bytesPerSecond)
        }
    }
}
