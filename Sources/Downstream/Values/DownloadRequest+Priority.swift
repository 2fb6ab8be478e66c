extension DownloadRequest {
    /// How urgent a download is compared with the others of its manager.
    ///
    /// A struct with static members so that levels can be added; compare with `<`.
    public struct Priority: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The level's value: higher runs first.
        let value: Int

        init(value: Int) {
            self.value = value
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
