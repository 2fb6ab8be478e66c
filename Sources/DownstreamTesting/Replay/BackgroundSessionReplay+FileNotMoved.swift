extension BackgroundSessionReplay {
    /// The manager left the file of a finished task where the system put it: the system deletes
    /// that file as soon as it has handed it over, so a manager must move it away first.
    public struct FileNotMoved: Error, CustomStringConvertible {
        /// The task whose file it was.
        public let taskIdentifier: Int

        /// What went wrong, in words.
        public var description: String {
            "the file of task \(taskIdentifier) was still where the system put it after it was handed over"
        }
    }
}
