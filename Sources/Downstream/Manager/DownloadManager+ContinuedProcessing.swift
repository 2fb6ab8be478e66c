extension DownloadManager {
    /// Downloads that the system lets run while the app is in the background (iOS 26's continued
    /// processing): made by ``DownloadManager/beginKeepingInFront(_:)``, ended once by
    /// ``DownloadManager/endKeepingInFront(_:expired:)``.
    final class KeepingInFront: Sendable {
        /// The downloads kept in front.
        let ids: [DownloadID]
        private let ended = Locked(false)

        init(_ downloads: [Download]) {
            ids = downloads.map(\.id)
        }

        /// Whether the keeping ended.
        var isEnded: Bool { ended.value }

        /// Marks the keeping ended; false if it was already.
        func end() -> Bool {
            ended.withLock { ended in
                defer { ended = true }
                return !ended
            }
        }
    }

    /// Keeps `downloads` in front: with the handoff mode, they go on with the ranged engine when
    /// the app leaves the foreground (``appDidEnterBackground()`` leaves them alone), and an
    /// attempt of theirs that starts while the app is in the background runs there too. For as
    /// long as the system lets the app run (a continued processing task), until
    /// ``endKeepingInFront(_:expired:)``.
    func beginKeepingInFront(_ downloads: [Download]) -> KeepingInFront {
        let keeping = KeepingInFront(downloads)
        beginKeepingInFront(keeping)
        return keeping
    }

    /// Begins `keeping`, made beforehand; nothing if it has ended already.
    func beginKeepingInFront(_ keeping: KeepingInFront) {
        guard !keeping.isEnded else { return }
        engines.systemUse.keepInFront(keeping.ids)
    }

    /// Ends `keeping` (once: returns false, doing nothing, when it had ended). When the system's
    /// time ran out (`expired`) and the app is in the background, each of its downloads still
    /// running on the ranged engine is handed to the background session, as
    /// ``appDidEnterBackground()`` does; otherwise nothing moves (a download that goes on runs on
    /// the engine of its attempt, and its next attempt takes the engine of the moment).
    /// Returns once the handed-off downloads have stopped their requests (their system tasks
    /// start right after).
    @discardableResult
    func endKeepingInFront(_ keeping: KeepingInFront, expired: Bool) async -> Bool {
        guard keeping.end() else { return false }
        let use = engines.systemUse
        let released = use.stopKeepingInFront(keeping.ids)
        guard expired, engines.system != nil, use.policy == .handoff, !use.isInForeground else { return true }
        let running = Set(scheduler.runningIDs)
        for id in released where running.contains(id) {
            await byID[id]?.handOff()
        }
        return true
    }
}

#if canImport(BackgroundTasks) && os(iOS) && !DOWNSTREAM_SDK_BEFORE_IOS26
    import BackgroundTasks

    extension DownloadManager {
        /// Asks the system to keep `group`'s downloads running after the app leaves the
        /// foreground, with its progress shown in the system's UI: iOS 26's continued processing
        /// (`BGContinuedProcessingTask`). Call it as the result of the user's action (the user
        /// tapped *Download*), while the app is in front.
        ///
        /// While the system runs the task, the group's downloads stay on the ranged engine when the
        /// app leaves the foreground (segments, bandwidth limits), and the task's progress is the
        /// group's bytes. The task completes when every download of the group has ended. When the
        /// system ends it early (the user stopped it, or the system needs the resources), each
        /// download still running is handed to the background session, from its bytes on disk,
        /// as the handoff mode does when the app leaves the foreground: see
        /// <doc:BackgroundDownloads#Continued-processing>. Without the handoff mode
        /// (``Configuration-swift.struct/Background-swift.struct/Mode-swift.struct/handoff``) the
        /// downloads run as they would without this call, and the system still shows their
        /// progress.
        ///
        /// - Parameters:
        ///   - group: the downloads to keep running.
        ///   - identifier: the task's identifier: your bundle identifier, then more context, under
        ///     a wildcard listed in the app's `BGTaskSchedulerPermittedIdentifiers` (for example
        ///     `com.example.app.downloads.*`), and one of its own for each call (a launch handler
        ///     is registered for it).
        ///   - title: the localized title the system shows.
        ///   - subtitle: the localized subtitle the system shows.
        /// - Throws: a ``DownloadError`` of kind ``DownloadError/Kind/invalidRequest`` when
        ///   `identifier` has a launch handler already; the error of `BGTaskScheduler.submit(_:)`
        ///   when the system refuses the request.
        @available(iOS 26, *)
        public nonisolated func continueProcessing(
            _ group: DownloadGroup, identifier: String, title: String, subtitle: String
        ) throws {
            let keeping = KeepingInFront(group.downloads)
            let registered = BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) {
                [weak self] task in
                guard let self, let continued = task as? BGContinuedProcessingTask else {
                    return task.setTaskCompleted(success: false)
                }
                self.run(ContinuedTask(continued), for: group, keeping: keeping)
            }
            guard registered else {
                throw DownloadError(
                    .invalidRequest, reason: "the task identifier \(identifier) has a launch handler already")
            }
            try BGTaskScheduler.shared.submit(
                BGContinuedProcessingTaskRequest(identifier: identifier, title: title, subtitle: subtitle))
        }

        /// Runs `task` for `group`: keeps its downloads in front, shows its progress, and
        /// completes the task when the group ends or the system expires it (whichever first).
        /// The task holds the manager until then (the scheduler's launch handler does not).
        @available(iOS 26, *)
        private nonisolated func run(_ task: ContinuedTask, for group: DownloadGroup, keeping: KeepingInFront) {
            let progress = Task {
                for await totals in group.progress {
                    task.show(totals)
                }
            }
            // Set at once: a task without an expiration handler is ended by the system.
            task.task.expirationHandler = {
                progress.cancel()
                Task {
                    if await self.endKeepingInFront(keeping, expired: true) {
                        task.task.setTaskCompleted(success: false)
                    }
                }
            }
            Task {
                await self.beginKeepingInFront(keeping)
                let results = await group.results
                progress.cancel()
                if await self.endKeepingInFront(keeping, expired: false) {
                    task.show(group.currentProgress)
                    let succeeded = results.allSatisfy { if case .success = $0 { true } else { false } }
                    task.task.setTaskCompleted(success: succeeded)
                }
            }
        }
    }

    /// A continued processing task, passed to the tasks that feed and complete it.
    @available(iOS 26, *)
    // @unchecked: BGTask's properties are atomic, setTaskCompleted is thread-safe, and so is Progress.
    private struct ContinuedTask: @unchecked Sendable {
        let task: BGContinuedProcessingTask

        init(_ task: BGContinuedProcessingTask) {
            self.task = task
        }

        /// Shows the group's bytes as the task's progress (indeterminate while a length is unknown).
        func show(_ totals: AggregateProgress) {
            let progress = task.progress
            progress.totalUnitCount = totals.expectedBytes ?? -1
            progress.completedUnitCount = totals.bytesReceived
        }
    }
#endif
