import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Download {
    /// Records what should become of the download, so that a relaunch knows. A record that cannot
    /// be written does not stop the download; it only will not survive the process as it is now.
    func saveIntent(_ intent: StoredDownload.Intent) {
        try? recordFile?.update(intent: intent)
    }

    func startAttempt(_ attempt: Int, _ kind: AttemptKind) {
        switch kind {
        case .first:
            saveIntent(.active)
            publishEvent(.running)
        case .restart:
            publishEvent(.restarted)
        case .continuation:
            break
        }
        sendRequest(attempt, kind)
    }

    /// Hands the attempt to the engines (which look at the destination first when a run starts).
    func sendRequest(_ attempt: Int, _ kind: AttemptKind) {
        if let requestError {
            handle(machine.attemptEnded(attempt, .failed(requestError)))
            return
        }
        if let problem = settings.headerProblem {
            // Also for downloads restored from the store, which no new request checked.
            handle(machine.attemptEnded(attempt, .failed(.invalidRequest(problem))))
            return
        }
        guard let target = attemptTarget() else {
            handle(machine.attemptEnded(attempt, .failed(.invalidRequest("the request has no URL"))))
            return
        }
        // Made once for the download's attempts (a restored request parses its URL's text).
        let sources = parsedSources ?? sources
        parsedSources = sources
        let description = Attempt(
            number: attempt, kind: kind, url: sources.current, credentials: credentials,
            answersChallenges: machine.answersChallenges, previousChallenges: Int(machine.answeredChallenges),
            rangesRefused: recoveryMemory.rangesRefused)
        let handle = engines.run(description, of: target) { [weak self] end in
            // Weak in the task too: a download let go of (its manager with it) is not kept
            // alive by the end of its last request.
            Task { [weak self] in await self?.attemptEnded(attempt, end) }
        }
        machine.attemptStarted(attempt, handle)
    }

    /// What the engines act on for this download, and whom they tell; nil for a request that
    /// cannot be downloaded (it has no record).
    nonisolated func attemptTarget() -> AttemptTarget? {
        guard let recordFile else { return nil }
        let observer = context.observer
        var target = AttemptTarget(
            downloadID: id, request: request, location: location, recordFile: recordFile,
            settings: settings.engine, progress: progressReporter,
            publish: { [weak self] in self?.publishEvent($0) },
            willSend: { [weak self] urlRequest in
                recordFile.noteHistory(DownloadHistoryEntry(request: urlRequest))
                guard let self else { return }
                observer.download(self, willSend: urlRequest)
            },
            didReceive: { [weak self] response in
                recordFile.noteHistory(DownloadHistoryEntry(response: response))
                guard let self else { return }
                observer.download(self, didReceive: response)
            },
            borrowConnections: { [weak self] count in
                guard let self else { return 0 }
                return await observer.connections(for: self, upTo: count)
            },
            returnConnections: { [weak self] in
                guard let self else { return }
                observer.downloadReturnsConnections(self)
            },
            deliveredCopies: context.deliveredCopies)
        if let adapter = settings.authentication.requestAdapter {
            let (id, request) = (id, request)
            target.adaptHeaders = { url in
                await RequestAdaptation(downloadID: id, request: request, url: url).headers(from: adapter)
            }
        }
        return target
    }

    /// Attempt `attempt` ended as its engine reports: the machine decides what comes next, after
    /// recovery was decided for a failure of the running attempt that sent its request. An end
    /// that holds background work holds it until the download finished with its file.
    func attemptEnded(_ attempt: Int, _ attemptEnd: AttemptEnd) {
        guard attemptEnd.holdsBackgroundWork else { return proceed(after: attempt, attemptEnd) }
        holdsBackgroundWork = true
        proceed(after: attempt, attemptEnd)
        if machine.phase != .finalizing, machine.publicState != .completed {
            finishBackgroundWork()
        }
    }

    private func proceed(after attempt: Int, _ attemptEnd: AttemptEnd) {
        if attemptEnd.rangesRefused {
            recoveryMemory.rangesRefused = true
        }
        guard !attemptEnd.failedBeforeSending, case .failed(let error) = attemptEnd.transferEnd else {
            handle(machine.attemptEnded(attempt, attemptEnd.transferEnd))
            return
        }
        switch machine.stepFinished(attempt, otherwise: attemptEnd.transferEnd) {
        case .proceed:
            recover(attempt, from: error, response: attemptEnd.response)
        case .ended(let action):
            // A failure of a stopping request: the stop decides what comes next.
            handle(action)
        }
    }

    /// Attempt `attempt` ended with `end` before or without its engine.
    func attemptEnded(_ attempt: Int, _ end: TransferEnd) {
        attemptEnded(attempt, AttemptEnd(transferEnd: end))
    }

    /// Asks the authentication handler about `challenge`, which ended request `attempt`, off the
    /// actor.
    func answer(_ challenge: AuthenticationChallenge, of attempt: Int) {
        if credentials.renewsStaleNonce(for: challenge) {
            // Only the Digest nonce was stale: the same credentials answer with the new one.
            handle(machine.challengeAnswered(attempt, challenge, refusal: nil))
            return
        }
        guard let handler = settings.authentication.handler else {
            // The machine answers challenges only for a download with a handler.
            handle(machine.challengeAnswered(attempt, challenge, refusal: .httpStatus(challenge.response.statusCode)))
            return
        }
        Task {
            let decision = await handler(challenge)
            self.challengeAnswered(attempt, challenge, decision)
        }
    }

    /// Keeps the credentials of `decision` for every later request, and tells the machine, which
    /// sends the request again with them, or fails without them (with the challenge's status,
    /// or because no scheme the server offers can carry the password given).
    private func challengeAnswered(
        _ attempt: Int, _ challenge: AuthenticationChallenge, _ decision: AuthenticationChallenge.Decision
    ) {
        let refusal = credentials.take(decision, for: challenge)
        handle(machine.challengeAnswered(attempt, challenge, refusal: refusal))
    }
}
