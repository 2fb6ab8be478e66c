import Foundation

extension Download {
    // The state machine's actions, performed: what each one does to the transfer, the record,
    // the subscribers and the waiters.

    func handle(_ action: StateMachine.Action) {
        // The snapshot changes before the action's effects, so that a waiter woken by them
        // already reads the new state.
        let state = machine.publicState
        let need = machine.slotNeed
        let (stateChanged, needChanged, groups) = snapshot.withLock { snapshot in
            defer { (snapshot.state, snapshot.slotNeed) = (state, need) }
            return (snapshot.state != state, snapshot.slotNeed != need, snapshot.groups)
        }
        if stateChanged {
            announce(state, to: groups)
        }
        if needChanged {
            // Sent in the order of the changes: the manager applies them in that order.
            context.onSlotNeedChange?(self, need, priority)
        }
        perform(action)
        if machine.isSettled, !settleWaiters.isEmpty {
            let waiters = settleWaiters
            settleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    func perform(_ action: StateMachine.Action) {
        switch action {
        case .none:
            break
        case .startAttempt(let attempt, let kind):
            startAttempt(attempt, kind)
        case .stopAttempt:
            // A pause keeps what the system can resume from; a cancel only if asked to.
            var keepsResumeData = true
            if case .stopping(_, .cancel(let keepingPartialData)) = machine.state {
                keepsResumeData = keepingPartialData
            }
            transfer?.stop(keepingResumeData: keepsResumeData)
        case .finalize:
            finalize()
        case .becomeQueued:
            pendingWait?.cancel()
            saveIntent(.active)
            publishEvent(.queued)
        case .scheduleRetry(let retry, let delay, let error):
            progressReporter.stop(finishing: false)
            publishEvent(.willRetry(in: delay, after: error))
            guard delay > .zero else {
                // Another URL takes over: back to the queue at once.
                handle(machine.retryTimerFired(retry))
                return
            }
            let clock = settings.clock
            pendingWait = Task { [weak self] in
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
                await self?.retryTimerFired(retry)
            }
        case .waitForNetwork(let wait, let error):
            progressReporter.stop(finishing: false)
            publishEvent(.waitingForNetwork(after: error))
            waitForNetwork(wait, after: error)
        case .becomePaused:
            pendingWait?.cancel()
            if !isShuttingDown {
                saveIntent(.paused)
            }
            progressReporter.stop(finishing: false)
            publishEvent(.paused)
        case .becomeFailed(let error):
            pendingWait?.cancel()
            saveIntent(.failed)
            end(with: .failure(error), event: .failed(error))
            finishBackgroundWork()
        case .becomeCancelled(let keepingPartialData):
            pendingWait?.cancel()
            if keepingPartialData {
                saveIntent(.kept)
            } else {
                // Marked first, so that a process killed in between finishes the job at launch.
                saveIntent(.cancelled)
                POSIXFile.remove(atPath: location.path)
                recordFile?.remove()
            }
            end(with: .failure(.cancelled), event: .cancelled)
            finishBackgroundWork()
        case .becomeCompleted(let url):
            end(with: .success(url), event: .completed(url))
            let handlers = engines.completionHandlers.all
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
    }

    func end(with outcome: Result<URL, DownloadError>, event: DownloadEvent) {
        transfer = nil
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
