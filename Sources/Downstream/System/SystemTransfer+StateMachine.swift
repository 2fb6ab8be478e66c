import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SystemTransfer {
    /// The life of one system download task as a value: each input returns what to do.
    ///
    /// No I/O happens here and nothing is locked: ``SystemTransfer`` feeds the session's events
    /// and its download's requests in under its lock, and performs the actions (cancelling the
    /// task, telling the download) after the lock is released.
    ///
    /// A transfer made by its download waits for the session to hand over the task it made
    /// (`attach`); one made for a task of an earlier process (adopted after a relaunch) starts
    /// with its task running. A stop cancels the task, at once or once it is handed over; a
    /// pause asks for Apple's resume data, and the end is reported only once the system answered
    /// the cancellation as well as completed the task, in whichever order, so that the resume
    /// data is in the record when the download reads the end. The end is taken once.
    ///
    /// `TaskHandle` is the task (`any SystemTask`); tests use plain values.
    struct StateMachine<TaskHandle: Sendable>: Sendable {
        enum State: Sendable {
            /// Made by its download: the session has not handed over the task yet.
            case awaitingTask
            /// Stopped before the session handed over the task, which is cancelled once it comes.
            case stoppedBeforeTask(keepingResumeData: Bool)
            /// The task runs.
            case running(RunningTask)
            /// The task was asked to stop and has not completed; `awaitsResumeData` until the
            /// system answered a cancellation that asked for resume data.
            case stopping(RunningTask, awaitsResumeData: Bool)
            /// The task completed, with `end`; the system has not answered the cancellation that
            /// asked for resume data yet.
            case awaitingResumeData(end: TransferEnd)
            /// The task ended with `end`, which the download has not taken yet.
            case ended(TransferEnd)
            /// The download took the end.
            case endTaken(TransferEnd)
        }

        /// A task that has not completed, with what it did so far.
        struct RunningTask: Sendable {
            var task: TaskHandle
            /// Whether the system wrote (or resumed at) any byte of it.
            var hasReceivedBytes = false
            /// What became of the file the system finished with, once it handed it over.
            var file: FileOutcome?
        }

        /// What became of the file the system finished a task with.
        enum FileOutcome: Equatable, Sendable {
            /// Moved into the partial file's place, and recorded.
            case kept
            /// Discarded (an error page), or it could not be kept.
            case failed(DownloadError)
            /// Discarded, the partial file kept: not the rest of the partial file's file (a
            /// handoff's answer that was not a `206` at the offset asked for, say). The task ends
            /// with `end`.
            case refused(TransferEnd)
        }

        enum AttachAction: Sendable {
            case none
            /// The transfer was stopped meanwhile: cancel the task.
            case cancel(TaskHandle, keepingResumeData: Bool)
        }

        enum StopAction: Sendable {
            case none
            case cancel(TaskHandle, keepingResumeData: Bool)
        }

        enum CompletedAction: Equatable, Sendable {
            /// Nothing to report: the resume data is still to come, or the task completed before.
            case none
            /// Tell the download that the transfer ended.
            case reportEnd
        }

        enum CancelAnsweredAction: Equatable, Sendable {
            case none
            /// The task had completed: tell the download that the transfer ended.
            case reportEnd
        }

        private(set) var state: State
        /// The download's number for the request, once it took the transfer on.
        private(set) var attempt: Int?
        /// Whether the task was made from Apple's resume data.
        let usesResumeData: Bool

        /// A machine for a task its download is about to start (`task` nil), or for `task`, a
        /// task of an earlier process that runs already (adopted after a relaunch).
        init(usesResumeData: Bool, task: TaskHandle? = nil) {
            self.usesResumeData = usesResumeData
            state = task.map { .running(RunningTask(task: $0)) } ?? .awaitingTask
        }

        /// The task, while it has not completed.
        var task: TaskHandle? {
            switch state {
            case .running(let running), .stopping(let running, _): running.task
            case .awaitingTask, .stoppedBeforeTask, .awaitingResumeData, .ended, .endTaken: nil
            }
        }

        /// Whether the system's file was kept as the partial file.
        var hasKeptFile: Bool {
            switch state {
            case .running(let running), .stopping(let running, _): running.file == .kept
            case .awaitingResumeData(let end), .ended(let end), .endTaken(let end): end == .finished
            case .awaitingTask, .stoppedBeforeTask: false
            }
        }

        // MARK: - The download's side

        /// The download took the transfer on as its request number `attempt`: once, when it
        /// started the task or adopted it.
        mutating func takeOn(attempt: Int) {
            if let taken = self.attempt {
                preconditionFailure("a system transfer of attempt \(taken) taken on again, as \(attempt)")
            }
            self.attempt = attempt
        }

        /// Stops the task: a pause keeps Apple's resume data, a cancel does not. The first stop
        /// decides; a transfer whose task completed stops no more.
        mutating func stop(keepingResumeData: Bool) -> StopAction {
            switch state {
            case .awaitingTask:
                state = .stoppedBeforeTask(keepingResumeData: keepingResumeData)
                return .none
            case .running(let running):
                state = .stopping(running, awaitsResumeData: keepingResumeData)
                return .cancel(running.task, keepingResumeData: keepingResumeData)
            case .stoppedBeforeTask, .stopping, .awaitingResumeData, .ended, .endTaken:
                return .none
            }
        }

        /// How the task ended, once the system also answered the cancellation that asked for
        /// resume data; nil before, or once taken.
        mutating func takeEnd() -> TransferEnd? {
            guard case .ended(let end) = state else { return nil }
            state = .endTaken(end)
            return end
        }

        // MARK: - The session's side

        /// The session made the task (on its control queue, before it starts it).
        mutating func attach(_ task: TaskHandle) -> AttachAction {
            switch state {
            case .awaitingTask:
                state = .running(RunningTask(task: task))
                return .none
            case .stoppedBeforeTask(let keepingResumeData):
                state = .stopping(RunningTask(task: task), awaitsResumeData: keepingResumeData)
                return .cancel(task, keepingResumeData: keepingResumeData)
            case .running, .stopping, .awaitingResumeData, .ended, .endTaken:
                preconditionFailure("a task attached to a system transfer in state \(state)")
            }
        }

        /// The system wrote bytes of the task, or resumed it at an offset. Ignored once the task
        /// completed.
        mutating func receivedBytes() {
            switch state {
            case .running(var running):
                running.hasReceivedBytes = true
                state = .running(running)
            case .stopping(var running, let awaitsResumeData):
                running.hasReceivedBytes = true
                state = .stopping(running, awaitsResumeData: awaitsResumeData)
            case .awaitingResumeData, .ended, .endTaken:
                break
            case .awaitingTask, .stoppedBeforeTask:
                preconditionFailure("bytes of a task that was not handed over, in state \(state)")
            }
        }

        /// The system finished the task's file, which was kept or discarded. It does so once, before
        /// the task completes; ignored after.
        mutating func fileHandedOver(_ outcome: FileOutcome) {
            switch state {
            case .running(var running):
                precondition(running.file == nil, "a second file handed over, in state \(state)")
                running.file = outcome
                state = .running(running)
            case .stopping(var running, let awaitsResumeData):
                precondition(running.file == nil, "a second file handed over, in state \(state)")
                running.file = outcome
                state = .stopping(running, awaitsResumeData: awaitsResumeData)
            case .awaitingResumeData, .ended, .endTaken:
                break
            case .awaitingTask, .stoppedBeforeTask:
                preconditionFailure("the file of a task that was not handed over, in state \(state)")
            }
        }

        /// The task completed, with `error` or none. A repeated completion is ignored.
        ///   - stoppedBySystem: why the system cancelled the task on its own, when it says so (a
        ///     force quit): not a failure, the download pauses.
        mutating func completed(error: TransportFailure?, stoppedBySystem: String? = nil) -> CompletedAction {
            switch state {
            case .running(let running):
                state = .ended(end(of: running, isStopping: false, error: error, stoppedBySystem: stoppedBySystem))
                return .reportEnd
            case .stopping(let running, let awaitsResumeData):
                let end = end(of: running, isStopping: true, error: error, stoppedBySystem: stoppedBySystem)
                if awaitsResumeData {
                    state = .awaitingResumeData(end: end)
                    return .none
                }
                state = .ended(end)
                return .reportEnd
            case .awaitingResumeData, .ended, .endTaken:
                return .none
            case .awaitingTask, .stoppedBeforeTask:
                preconditionFailure("a task that was not handed over completed, in state \(state)")
            }
        }

        /// The system answered a cancellation this machine asked for: with its resume data (or
        /// none), when asked for some.
        mutating func cancelAnswered() -> CancelAnsweredAction {
            switch state {
            case .stopping(let running, awaitsResumeData: _):
                state = .stopping(running, awaitsResumeData: false)
                return .none
            case .awaitingResumeData(let end):
                state = .ended(end)
                return .reportEnd
            case .ended, .endTaken:
                // The answer of a cancellation that asked for no resume data, after the completion.
                return .none
            case .awaitingTask, .stoppedBeforeTask, .running:
                preconditionFailure("a cancellation answered that was not asked for, in state \(state)")
            }
        }

        // MARK: - Private

        private func end(
            of running: RunningTask, isStopping: Bool, error: TransportFailure?, stoppedBySystem: String?
        ) -> TransferEnd {
            switch running.file {
            case .kept: return .finished
            case .failed(let error): return .failed(error)
            case .refused(let end): return end
            case nil: break
            }
            guard let error else {
                return .failed(.unexpectedResponse("the system finished the task without a file"))
            }
            if error.isCancellation, isStopping {
                return .cancelled
            }
            if error.isCancellation, let stoppedBySystem {
                // Its resume data (if any) was kept: even one it could not use yet is tried again.
                return .stoppedBySystem(reason: stoppedBySystem)
            }
            if usesResumeData, !running.hasReceivedBytes {
                // The system could not use its resume data: start the file again.
                return .restart(reason: "the system could not resume from its resume data (\(error.reason))")
            }
            return .failed(.network(error))
        }
    }
}

extension SystemTransfer.StateMachine.State: Equatable where TaskHandle: Equatable {}
extension SystemTransfer.StateMachine.RunningTask: Equatable where TaskHandle: Equatable {}
extension SystemTransfer.StateMachine.AttachAction: Equatable where TaskHandle: Equatable {}
extension SystemTransfer.StateMachine.StopAction: Equatable where TaskHandle: Equatable {}
