import Foundation

extension Download {
    // The state machine's actions, performed: one `handle` for each input's action type, each
    // switching over what that input can lead to. The effects several inputs share are the
    // functions below them.

    func handle(_ action: Machine.StartAction) {
        transitioned {
            switch action {
            case .none: break
            case .startAttempt(let attempt): startAttempt(attempt, .first)
            }
        }
    }

    func handle(_ action: Machine.PauseAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomePaused(let savingIntent, let timer):
                timer?.cancel()
                becomePaused(savingIntent: savingIntent)
            case .stopAttempt(_, let handle): handle?.stop(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: Machine.ResumeAction) {
        switch action {
        case .none:
            transitioned {}
        case .becomeQueued(let reopening, let timer):
            timer?.cancel()
            if reopening {
                // Before the new state shows: whoever sees it running finds a new run.
                reopenForNewRun()
            }
            transitioned { becomeQueued() }
        }
    }

    func handle(_ action: Machine.PreemptAction) {
        transitioned {
            switch action {
            case .none: break
            case .stopAttempt(_, let handle): handle?.stop(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: Machine.CancelAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomeCancelled(let keepingPartialData, let timer):
                timer?.cancel()
                becomeCancelled(keepingPartialData: keepingPartialData)
            case .stopAttempt(_, let keepingPartialData, let handle):
                handle?.stop(keepingResumeData: keepingPartialData)
            }
        }
    }

    func handle(_ action: Machine.ShutDownAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomePaused(let timer):
                timer?.cancel()
                becomePaused(savingIntent: false)
            case .stopAttempt(_, let handle): handle?.stop(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: Machine.URLChangedAction) {
        transitioned {
            switch action {
            case .refuse, .none: break
            case .stopAttempt(_, let handle): handle?.stop(keepingResumeData: true)
            }
        }
    }

    func handle(_ action: Machine.AttemptEndedAction) {
        transitioned {
            switch action {
            case .none: break
            case .startAttempt(let attempt, let kind): startAttempt(attempt, kind)
            case .finalize: finalize()
            case .answerChallenge(let attempt, let challenge): answer(challenge, of: attempt)
            case .scheduleRetry(let retry, let delay, let error): scheduleRetry(retry, after: delay, error: error)
            case .waitForNetwork(let wait, let error): beginNetworkWait(wait, after: error)
            case .becomeQueued: becomeQueued()
            case .becomePaused(let savingIntent): becomePaused(savingIntent: savingIntent)
            case .becomeFailed(let error): becomeFailed(error)
            case .becomeCancelled(let keepingPartialData): becomeCancelled(keepingPartialData: keepingPartialData)
            case .becomeCompleted(let url): becomeCompleted(url)
            }
        }
    }

    func handle(_ action: Machine.ChallengeAnsweredAction) {
        transitioned {
            switch action {
            case .none: break
            case .startAttempt(let attempt, let kind): startAttempt(attempt, kind)
            case .becomeQueued: becomeQueued()
            case .becomePaused(let savingIntent): becomePaused(savingIntent: savingIntent)
            case .becomeFailed(let error): becomeFailed(error)
            case .becomeCancelled(let keepingPartialData): becomeCancelled(keepingPartialData: keepingPartialData)
            case .waitForNetwork(let wait, let error): beginNetworkWait(wait, after: error)
            }
        }
    }

    func handle(_ action: Machine.NetworkRefusedAction) {
        transitioned {
            switch action {
            case .none: break
            case .stopAttempt(_, let handle): handle?.stop(keepingResumeData: true)
            case .waitForNetwork(let wait, let error): beginNetworkWait(wait, after: error)
            }
        }
    }

    func handle(_ action: Machine.RetryTimerFiredAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomeQueued: becomeQueued()
            }
        }
    }

    func handle(_ action: Machine.NetworkWaitEndedAction) {
        transitioned {
            switch action {
            case .none: break
            case .becomeQueued: becomeQueued()
            case .becomeFailed(let error): becomeFailed(error)
            }
        }
    }

    func handle(_ action: Machine.FinalizedAction) {
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
        let (stateChanged, needChanged) = withSnapshot { snapshot in
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
        for waiter in machine.settledWaiters() {
            waiter.resume()
        }
    }

    // MARK: - Effects shared by several inputs

    private func becomeQueued() {
        saveIntent(.active)
        publishEvent(.queued)
    }

    /// - Parameter savingIntent: whether the record says the download is paused; not once its
    ///   manager shut down (the record keeps the intent it had).
    private func becomePaused(savingIntent: Bool) {
        if savingIntent {
            saveIntent(.paused)
        }
        progressReporter.stop(finishing: false)
        publishEvent(.paused)
    }

    private func beginNetworkWait(_ wait: Int, after error: DownloadError) {
        progressReporter.stop(finishing: false)
        publishEvent(.waitingForNetwork(after: error))
        waitForNetwork(wait, after: error)
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
        let timer = Task { [weak self] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self?.retryTimerFired(retry)
        }
        machine.timerStarted(timer, forRetry: retry)
    }

    private func becomeFailed(_ error: DownloadError) {
        noteFailure(error)
        saveIntent(.failed)
        conclude(with: .failure(error), event: .failed(error))
        finishBackgroundWork()
    }

    private func becomeCancelled(keepingPartialData: Bool) {
        if keepingPartialData {
            saveIntent(.kept)
        } else {
            // Marked first, so that a process killed in between finishes the job at launch.
            saveIntent(.cancelled)
            // A request that could not be downloaded never had the partial file: it may be
            // another download's (of another URL, or of another manager sharing the store).
            if requestError == nil {
                POSIXFile.removeOwnFile(atPath: location.path)
            }
            recordFile?.remove()
        }
        placeClaim?.release()
        conclude(with: .failure(.cancelled), event: .cancelled)
        finishBackgroundWork()
    }

    private func becomeCompleted(_ url: URL) {
        placeClaim?.release()
        conclude(with: .success(url), event: .completed(url))
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

    /// The download ended with `outcome`: its last event and progress, its waiters and its
    /// response handlers hear of it.
    func conclude(with outcome: Result<URL, DownloadError>, event: DownloadEvent) {
        // A failed download that is then cancelled ends a second time: reopen so that its last
        // event and progress are the cancellation's.
        reopenForNewRun()
        progressReporter.stop(finishing: true)
        publishEvent(event)
        eventBroadcast.finish()
        result.resolve(outcome)
        responseChain.ended(
            DownloadResponse(
                downloadID: id, request: request, response: recordFile?.resume.response, result: outcome))
    }

    func reopenForNewRun() {
        result.reset()
        responseChain.reopen()
        progressReporter.reopen()
        eventBroadcast.reopen()
    }

    func waitUntilSettled() async {
        guard !machine.isSettled else { return }
        await withCheckedContinuation { continuation in
            machine.awaitSettling(continuation)?.resume()
        }
    }
}
