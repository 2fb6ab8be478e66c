extension DownloadRequest {
    /// How urgent a download is compared with the others of its manager.
    ///
    /// A struct with static members so that levels can be added; compare with `<`.
    public struct Priority: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The level's value: higher runs first.
        var value: Int { Int(level) }
        /// The value in one byte (levels are few; a request and its download's snapshot are kept
        /// for each of 100,000 queued downloads).
        private let level: Int8

        /// A level of `value`, within the range of one byte.
        init(value: Int) {
            level = Int8(clamping: value)
        }

        /// Runs after the others.
        public static let low = Priority(value: -1)
        /// The default.
        public static let normal = Priority(value: 0)
        /// Runs before the others.
        public static let high = Priority(value: 1)

        public static func < (lhs: Priority, rhs: Priority) -> Bool {
            lhs.value < rhs.value
        }

        public var description: String {
            switch value {
            case ..<0: "low"
            case 0: "normal"
            default: "high"
            }
        }
    }
}
