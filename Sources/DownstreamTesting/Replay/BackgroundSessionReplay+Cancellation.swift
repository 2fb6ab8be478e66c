extension BackgroundSessionReplay {
    /// A cancellation a manager asked the session for: when a download pauses (asking for resume
    /// data, to continue from it), is cancelled, or finds a task it does not want.
    public struct Cancellation: Sendable, Hashable, CustomStringConvertible {
        /// The identifier of the task to cancel.
        public var taskIdentifier: Int
        /// Whether the manager asked for resume data, as `cancel(byProducingResumeData:)` does.
        public var producingResumeData: Bool

        /// A cancellation of task `taskIdentifier`, with or without resume data.
        public init(taskIdentifier: Int, producingResumeData: Bool) {
            self.taskIdentifier = taskIdentifier
            self.producingResumeData = producingResumeData
        }

        /// The cancellation in words, for test failures.
        public var description: String {
            "cancel task \(taskIdentifier)\(producingResumeData ? " producing resume data" : "")"
        }
    }
}
