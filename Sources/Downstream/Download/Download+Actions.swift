import Foundation

extension Download {
    // The state machine's actions, performed: one `handle` for each input's action type, each
    // switching over what that input can lead to. The effects several inputs share are the
    // functions below them.

    func handle(_ action: StateMachine.StartAction) {
        transitioned {
            switch action {
            case .none: break
            case .startAttempt(let attempt): startAttempt(attempt, .run)
            }
        }
    }

    func handle(_ action: StateMachine.PauseAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomePaused(let savingIntent): becomePaused(savingIntent: savingIntent)
            case .stopAttempt: stopAttempt(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: StateMachine.ResumeAction) {
        switch action {
        case .none:
            transitioned {}
        case .becomeQueued(let reopening):
            if reopening {
                // Before the new state shows: whoever sees it running finds a new run.
                reopenForNewRun()
            }
            transitioned { becomeQueued() }
        }
    }

    func handle(_ action: StateMachine.PreemptAction) {
        transitioned {
            switch action {
            case .none: break
            case .stopAttempt: stopAttempt(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: StateMachine.CancelAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomeCancelled(let keepingPartialData): becomeCancelled(keepingPartialData: keepingPartialData)
            case .stopAttempt(_, let keepingPartialData): stopAttempt(keepingResumeData: keepingPartialData)
            }
        }
    }

    func handle(_ action: StateMachine.ShutDownAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomePaused: becomePaused(savingIntent: false)
            case .stopAttempt: stopAttempt(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: StateMachine.URLChangedAction) {
        transitioned {
            switch action {
            case .refuse, .none: break
            case .stopAttempt: stopAttempt(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: StateMachine.AttemptEndedAction) {
        transitioned {
            switch action {
            case .none: break
            case .startAttempt(let attempt, let kind): startAttempt(attempt, kind)
            case .finalize: finalize()
            case .answerChallenge(let attempt, let challenge): answer(challenge, of: attempt)
            case .scheduleRetry(let retry, let delay, let error): scheduleRetry(retry, after: delay, error: error)
            case .waitForNetwork(let wait, let error):
                progressReporter.stop(finishing: false)
                publishEvent(.waitingForNetwork(after: error))
                waitForNetwork(wait, after: error)
            case .becomeQueued: becomeQueued()
            case .becomePaused(let savingIntent): becomePaused(savingIntent: savingIntent)
            case .becomeFailed(let error): becomeFailed(error)
            case .becomeCancelled(let keepingPartialData): becomeCancelled(keepingPartialData: keepingPartialData)
            case .becomeCompleted(let url): becomeCompleted(url)
            }
        }
    }

    func handle(_ action: StateMachine.ChallengeAnsweredAction) {
        transitioned {
            switch action {
            case .none: break
            case .startAttempt(let attempt, let kind): startAttempt(attempt, kind)
            case .becomeQueued: becomeQueued()
            case .becomePaused(let savingIntent): becomePaused(savingIntent: savingIntent)
            case .becomeFailed(let error): becomeFailed(error)
            case .becomeCancelled(let keepingPartialData): becomeCancelled(keepingPartialData: keepingPartialData)
            }
        }
    }

    func handle(_ action: StateMachine.RetryTimerFiredAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomeQueued: becomeQueued()
            }
        }
    }

    func handle(_ action: StateMachine.NetworkWaitEndedAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomeQueued: becomeQueued()
            case .becomeFailed(let error): becomeFailed(error)
            }
        }
    }

    func handle(_ action: StateMachine.FinalizedAction) {
        transitioned {
            switch action {
            case .becomeCompleted(let url): becomeCompleted(url)
            case .becomeFailed(let error): becomeFailed(error)
            }
        }
    }

    /// Shows the machine's new state and slot need, then performs `effects` (the action of the
    /// transition), then wakes the waiters of a download that settled.
    func transitioned(_ effects: () -> Void) {
        // The snapshot changes before the action's effects, so that a waiter woken by them
        // already reads the new state.
        let state = machine.publicState
        let need = machine.slotNeed
        let (stateChanged, needChanged) = snapshot.withLock { snapshot in
            defer { (snapshot.state, snapshot.slotNeed) = (state, need) }
            return (snapshot.state != state, snapshot.slotNeed != need)
        }
        if stateChanged {
            announce(state)
        }
        if needChanged {
            // Sent in the order of the changes: the manager applies them in that order.
            context.observer.download(self, didChangeSlotNeed: need, priority: priority)
        }
        effects()
        if machine.isSettled, !settleWaiters.isEmpty {
            let waiters = settleWaiters
            settleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: - Effects shared by several inputs

    /// Stops the running request; `keepingResumeData` asks the system for resume data when it
    /// can give some.
    private func stopAttempt(keepingResumeData: Bool) {
        running?.stop(keepingResumeData: keepingResumeData)
    }

    private func becomeQueued() {
        pendingWait?.cancel()
        saveIntent(.active)
        publishEvent(.queued)
    }

    /// - Parameter savingIntent: whether the record says the download is paused; not once its
    ///   manager shut down (the record keeps the intent it had).
    private func becomePaused(savingIntent: Bool) {
        pendingWait?.cancel()
        if savingIntent {
            saveIntent(.paused)
        }
        progressReporter.stop(finishing: false)
        publishEvent(.paused)
    }

    private func scheduleRetry(_ retry: Int, after delay: Duration, error: DownloadError) {
        progressReporter.stop(finishing: false)
        publishEvent(.willRetry(in: delay, after: error))
        guard delay > .zero else {
            // Another URL takes over: back to the queue at once.
            handle(machine.retryTimerFired(retry))
            return
        }
        let clock = settings.engine.clock
        pendingWait = Task { [weak self] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self?.retryTimerFired(retry)
        }
    }

    private func becomeFailed(_ error: DownloadError) {
        pendingWait?.cancel()
        saveIntent(.failed)
        end(with: .failure(error), event: .failed(error))
        finishBackgroundWork()
    }

    private func becomeCancelled(keepingPartialData: Bool) {
        pendingWait?.cancel()
        if keepingPartialData {
            saveIntent(.kept)
        } else {
            // Marked first, so that a process killed in between finishes the job at launch.
            saveIntent(.cancelled)
            // A request that could not be downloaded never had the partial file: it may be
            // another download's (of another URL, or of another manager sharing the store).
            if requestError == nil {
                POSIXFile.remove(atPath: location.path)
            }
            recordFile?.remove()
        }
        placeClaim?.release()
        end(with: .failure(.cancelled), event: .cancelled)
        finishBackgroundWork()
    }

    private func becomeCompleted(_ url: URL) {
        placeClaim?.release()
        end(with: .success(url), event: .completed(url))
        let handlers = context.observer.completionHandlers
        guard !handlers.isEmpty else {
            finishBackgroundWork()
            return
        }
        Task {
            for handler in handlers {
                await handler(self, url)
            }
            self.finishBackgroundWork()
        }
    }

    func end(with outcome: Result<URL, DownloadError>, event: DownloadEvent) {
        running = nil
        // A failed download that is then cancelled ends a second time: reopen so that its last
        // event and progress are the cancellation's.
        reopenForNewRun()
        progressReporter.stop(finishing: true)
        publishEvent(event)
        eventBroadcast.finish()
        result.resolve(outcome)
        responseChain.ended(
            DownloadResponse(
                downloadID: id, request: request, response: recordFile?.record.resume.response, result: outcome))
    }

    func reopenForNewRun() {
        result.reset()
        responseChain.reopen()
        progressReporter.reopen()
        eventBroadcast.reopen()
    }

    func waitUntilSettled() async {
        guard !machine.isSettled else { return }
        await withCheckedContinuation { settleWaiters.append($0) }
    }
}
