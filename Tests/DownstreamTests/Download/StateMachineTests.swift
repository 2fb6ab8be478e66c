import Foundation
import Testing

@testable import Downstream

@Suite struct StateMachineTests {
    typealias Machine = Download.StateMachine<Int, Int, Int>

    let file = URL(fileURLWithPath: "/tmp/file.bin")

    @Test func runsOneAttemptToCompletion() {
        var machine = Machine()
        #expect(machine.start() == .startAttempt(1))
        #expect(machine.publicState == .running)
        #expect(machine.attemptEnded(1, .finished) == .finalize)
        #expect(!machine.isSettled)
        #expect(machine.finalized(.success(file)) == .becomeCompleted(file))
        #expect(machine.publicState == .completed)
    }

    @Test func aStepTakenOffTheMachineGoesOnOnlyWhileItsAttemptRuns() {
        let failure = DownloadError.httpStatus(503)
        var machine = Machine()
        _ = machine.start()
        #expect(machine.stepFinished(1, otherwise: .failed(failure)) == .proceed)
        #expect(machine.publicState == .running)
        // Paused meanwhile: the step's attempt ends as a stopped request ends, whatever it was.
        #expect(machine.pause() == .stopAttempt(1))
        #expect(machine.stepFinished(1, otherwise: .failed(failure)) == .ended(.becomePaused(savingIntent: true)))
        #expect(machine.publicState == .paused)
        // An earlier attempt's step, after a newer attempt started: nothing happens.
        _ = machine.resume()
        #expect(machine.start() == .startAttempt(2))
        #expect(machine.stepFinished(1, otherwise: .cancelled) == .ended(.none))
        #expect(machine.phase == .running(attempt: 2))
        // Cancelled meanwhile: the step's end cancels.
        #expect(machine.cancel(keepingPartialData: true) == .stopAttempt(2, keepingPartialData: true))
        #expect(machine.stepFinished(2, otherwise: .cancelled) == .ended(.becomeCancelled(keepingPartialData: true)))
    }

    @Test func aRunningAttemptHoldsItsRequestAndHandsItOverToBeStopped() {
        var machine = Machine()
        #expect(machine.start() == .startAttempt(1))
        #expect(machine.attemptHandle == nil)
        machine.attemptStarted(1, 42)
        #expect(machine.attemptHandle == 42)
        #expect(machine.pause() == .stopAttempt(1, handle: 42))
        // Stopping, it still holds the request, until the request's end.
        #expect(machine.attemptHandle == 42)
        #expect(machine.attemptEnded(1, .cancelled) == .becomePaused(savingIntent: true))
        #expect(machine.attemptHandle == nil)
    }

    @Test func aWaitHoldsItsTimerAndHandsItOverWhenItIsLeft() {
        func waiting(_ recovery: Machine.Recovery) -> Machine {
            var machine = Machine()
            _ = machine.start()
            machine.attemptStarted(1, 1)
            switch machine.attemptEnded(1, .failed(.httpStatus(503)), recovery: recovery) {
            case .scheduleRetry(let retry, _, _): machine.timerStarted(7, forRetry: retry)
            case .waitForNetwork(let wait, _): machine.timerStarted(7, forNetworkWait: wait)
            default: Issue.record("no wait")
            }
            #expect(machine.attemptHandle == nil)
            return machine
        }
        for recovery in [Machine.Recovery.retry(after: .seconds(1)), .waitForNetwork] {
            var paused = waiting(recovery)
            #expect(paused.pause() == .becomePaused(savingIntent: true, cancelling: 7))
            var resumed = waiting(recovery)
            #expect(resumed.resume() == .becomeQueued(reopening: false, cancelling: 7))
            var cancelled = waiting(recovery)
            #expect(
                cancelled.cancel(keepingPartialData: true) == .becomeCancelled(keepingPartialData: true, cancelling: 7))
            var shutDown = waiting(recovery)
            #expect(shutDown.shutDown(requestOutlivesProcess: false) == .becomePaused(cancelling: 7))
            var adopting = waiting(recovery)
            #expect(adopting.adopt() == .adopt(2, cancelling: 7))
        }
    }

    @Test func settleWaitersAreResumedOnceTheRequestStopped() {
        var machine = Machine()
        _ = machine.start()
        // Settled while running: a waiter goes on at once.
        #expect(machine.awaitSettling(1) == 1)
        _ = machine.pause()
        #expect(machine.awaitSettling(2) == nil)
        #expect(machine.awaitSettling(3) == nil)
        #expect(machine.settledWaiters().isEmpty, "not settled while the request stops")
        _ = machine.attemptEnded(1, .cancelled)
        #expect(machine.settledWaiters() == [2, 3])
        #expect(machine.settledWaiters().isEmpty, "each waiter is resumed once")
    }

    @Test func pauseStopsTheAttemptAndWaitsForItsEnd() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.pause() == .stopAttempt(1))
        #expect(!machine.isSettled)
        #expect(machine.pause() == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .becomePaused(savingIntent: true))
        #expect(machine.publicState == .paused)
        #expect(machine.slotNeed == .none)
        #expect(machine.resume() == .becomeQueued(reopening: false))
        #expect(machine.slotNeed == .waiting)
        #expect(machine.start() == .startAttempt(2))
    }

    @Test func resumeDuringAPauseStartsANewAttemptOnlyAfterTheOldOneEnded() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.pause()
        #expect(machine.resume() == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .startAttempt(2, .first))
        #expect(machine.publicState == .running)
    }

    @Test func aLateCancellationOfAFinishedAttemptDeliversTheFile() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.pause()
        #expect(machine.attemptEnded(1, .finished) == .finalize)
    }

    @Test func cancelWinsOverAFinishedAttempt() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.cancel(keepingPartialData: false) == .stopAttempt(1, keepingPartialData: false))
        #expect(machine.attemptEnded(1, .finished) == .becomeCancelled(keepingPartialData: false))
        #expect(machine.resume() == .none)
        #expect(machine.start() == .none)
    }

    @Test func cancelDuringAPauseReplacesIt() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.pause()
        #expect(machine.cancel(keepingPartialData: true) == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .becomeCancelled(keepingPartialData: true))
    }

    @Test func endsOfStaleAttemptsAreIgnored() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.pause()
        _ = machine.resume()
        #expect(machine.attemptEnded(1, .cancelled) == .startAttempt(2, .first))
        #expect(machine.attemptEnded(1, .finished) == .none)
        #expect(machine.phase == .running(attempt: 2))
    }

    @Test func aFailureIsResumable() {
        var machine = Machine()
        _ = machine.start()
        let error = DownloadError.network(.networkConnectionLost)
        #expect(machine.attemptEnded(1, .failed(error)) == .becomeFailed(error))
        #expect(machine.publicState == .failed)
        #expect(machine.resume() == .becomeQueued(reopening: true))
        #expect(machine.start() == .startAttempt(2))
    }

    @Test func anInvalidRequestIsNotResumable() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.attemptEnded(1, .failed(.invalidRequest("ftp")))
        #expect(machine.resume() == .none)
    }

    @Test func restartsFromTheStartAFewTimesThenGivesUp() {
        var machine = Machine()
        _ = machine.start()
        for attempt in 1...Machine.automaticAttemptLimit {
            #expect(machine.attemptEnded(attempt, .restart(reason: "odd")) == .startAttempt(attempt + 1, .restart))
        }
        guard
            case .becomeFailed(let error) = machine.attemptEnded(
                Machine.automaticAttemptLimit + 1, .restart(reason: "odd"))
        else {
            Issue.record("expected the download to give up")
            return
        }
        #expect(error.kind == .unexpectedResponse)
    }

    @Test func rangesThatProgressContinueWithoutLimit() {
        var machine = Machine()
        _ = machine.start()
        for attempt in 1...50 {
            #expect(
                machine.attemptEnded(attempt, .incomplete(progressed: true))
                    == .startAttempt(attempt + 1, .continuation))
        }
        #expect(machine.attemptEnded(51, .finished) == .finalize)
    }

    @Test func emptyRangesCountTowardsTheLimit() {
        var machine = Machine()
        _ = machine.start()
        for attempt in 1...Machine.automaticAttemptLimit {
            #expect(
                machine.attemptEnded(attempt, .incomplete(progressed: false))
                    == .startAttempt(attempt + 1, .continuation))
        }
        guard
            case .becomeFailed = machine.attemptEnded(Machine.automaticAttemptLimit + 1, .incomplete(progressed: false))
        else {
            Issue.record("expected the download to give up")
            return
        }
    }

    @Test func aUserResumeResetsTheLimit() {
        var machine = Machine()
        _ = machine.start()
        for attempt in 1...Machine.automaticAttemptLimit {
            _ = machine.attemptEnded(attempt, .restart(reason: "odd"))
        }
        let attempt = Machine.automaticAttemptLimit + 1
        _ = machine.pause()
        _ = machine.resume()
        #expect(machine.attemptEnded(attempt, .cancelled) == .startAttempt(attempt + 1, .first))
        #expect(machine.attemptEnded(attempt + 1, .restart(reason: "odd")) == .startAttempt(attempt + 2, .restart))
    }

    @Test func pausingAQueuedDownloadNeedsNoAttempt() {
        var machine = Machine()
        #expect(machine.pause() == .becomePaused(savingIntent: true))
        #expect(machine.start() == .none)
        #expect(machine.resume() == .becomeQueued(reopening: false))
        #expect(machine.start() == .startAttempt(1))
    }

    @Test func aFailedFinalizationIsAResumableFailure() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.attemptEnded(1, .finished)
        let error = DownloadError.destinationExists(path: "/tmp/x")
        #expect(machine.finalized(.failure(error)) == .becomeFailed(error))
        #expect(machine.resume() == .becomeQueued(reopening: true))
        #expect(machine.start() == .startAttempt(2))
    }

    @Test func aTransientFailureWaitsThenQueuesAgain() {
        var machine = Machine()
        _ = machine.start()
        let error = DownloadError.httpStatus(503)
        #expect(
            machine.attemptEnded(1, .failed(error), recovery: .retry(after: .seconds(2)))
                == .scheduleRetry(1, after: .seconds(2), error: error))
        #expect(machine.publicState == .waitingToRetry)
        #expect(machine.slotNeed == .none)
        #expect(machine.retries == 1)
        #expect(machine.retryTimerFired(7) == .none)
        #expect(machine.retryTimerFired(1) == .becomeQueued)
        #expect(machine.start() == .startAttempt(2))
        // Counting goes on until the download is resumed by request.
        #expect(
            machine.attemptEnded(2, .failed(error), recovery: .retry(after: .seconds(4)))
                == .scheduleRetry(2, after: .seconds(4), error: error))
        #expect(machine.retries == 2)
        #expect(machine.resume() == .becomeQueued(reopening: false))
        #expect(machine.retries == 0)
        #expect(machine.retryTimerFired(2) == .none)
    }

    @Test func aDownloadWaitingToRetryCanBePausedOrCancelled() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.attemptEnded(1, .failed(.network(.timedOut)), recovery: .retry(after: .seconds(1)))
        #expect(machine.pause() == .becomePaused(savingIntent: true))
        #expect(machine.retryTimerFired(1) == .none)
        var other = Machine()
        _ = other.start()
        _ = other.attemptEnded(1, .failed(.network(.timedOut)), recovery: .retry(after: .seconds(1)))
        #expect(other.cancel(keepingPartialData: false) == .becomeCancelled(keepingPartialData: false))
    }

    @Test func withoutNetworkADownloadWaitsForItWithoutSpendingRetries() {
        var machine = Machine()
        _ = machine.start()
        let error = DownloadError.network(.notConnectedToInternet)
        _ = machine.attemptEnded(1, .failed(error), recovery: .retry(after: .seconds(1)))
        _ = machine.retryTimerFired(1)
        _ = machine.start()
        #expect(machine.retries == 1)
        #expect(machine.attemptEnded(2, .failed(error), recovery: .waitForNetwork) == .waitForNetwork(1, error: error))
        #expect(machine.publicState == .waitingForNetwork)
        #expect(machine.slotNeed == .none)
        #expect(machine.isSettled)
        // Another wait's end, or a retry timer, changes nothing.
        #expect(machine.networkWaitEnded(2, isNetworkBack: true, timeout: error) == .none)
        #expect(machine.retryTimerFired(1) == .none)
        #expect(machine.networkWaitEnded(1, isNetworkBack: true, timeout: error) == .becomeQueued)
        #expect(machine.retries == 0)
        #expect(machine.start() == .startAttempt(3))

        let timeout = DownloadError.network(.timedOut)
        _ = machine.attemptEnded(3, .failed(error), recovery: .waitForNetwork)
        #expect(machine.networkWaitEnded(2, isNetworkBack: false, timeout: timeout) == .becomeFailed(timeout))
        #expect(machine.networkWaitEnded(2, isNetworkBack: true, timeout: timeout) == .none)
    }

    @Test func aDownloadWaitingForTheNetworkCanBePausedResumedOrCancelled() {
        let error = DownloadError.network(.notConnectedToInternet)
        var machine = Machine()
        _ = machine.start()
        _ = machine.attemptEnded(1, .failed(error), recovery: .waitForNetwork)
        #expect(machine.pause() == .becomePaused(savingIntent: true))
        #expect(machine.networkWaitEnded(1, isNetworkBack: true, timeout: error) == .none)
        #expect(machine.resume() == .becomeQueued(reopening: false))
        _ = machine.start()
        _ = machine.attemptEnded(2, .failed(error), recovery: .waitForNetwork)
        // Resuming tries at once.
        #expect(machine.resume() == .becomeQueued(reopening: false))
        _ = machine.start()
        _ = machine.attemptEnded(3, .failed(error), recovery: .waitForNetwork)
        #expect(machine.cancel(keepingPartialData: true) == .becomeCancelled(keepingPartialData: true))
    }

    @Test func anotherURLTakesOverAtOnceWithItsRetriesWhole() {
        var machine = Machine()
        _ = machine.start()
        let error = DownloadError.httpStatus(404)
        _ = machine.attemptEnded(1, .failed(.httpStatus(503)), recovery: .retry(after: .seconds(1)))
        _ = machine.retryTimerFired(1)
        _ = machine.start()
        #expect(
            machine.attemptEnded(2, .failed(error), recovery: .switchURL)
                == .scheduleRetry(2, after: .zero, error: error))
        #expect(machine.retries == 0)
        #expect(machine.slotNeed == .none)
        #expect(machine.retryTimerFired(2) == .becomeQueued)
    }

    @Test func aNewURLStopsTheRunningRequestAndTheNextContinues() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.urlChanged() == .stopAttempt(1))
        #expect(machine.slotNeed == .holding)
        #expect(machine.attemptEnded(1, .cancelled) == .startAttempt(2, .first))
        // Not running: the next request takes the URL; nothing to do now.
        #expect(machine.pause() == .stopAttempt(2))
        #expect(machine.urlChanged() == .none)
        #expect(machine.attemptEnded(2, .cancelled) == .becomePaused(savingIntent: true))
        #expect(machine.urlChanged() == .none)
        // A download that has its file, or will never have it, takes no URL.
        _ = machine.cancel(keepingPartialData: false)
        #expect(machine.urlChanged() == .refuse)
        var finishing = Machine()
        _ = finishing.start()
        #expect(finishing.attemptEnded(1, .finished) == .finalize)
        #expect(finishing.urlChanged() == .refuse)
        #expect(finishing.phase == .finalizing)
    }

    @Test func aConflictFoundBeforeTheFirstByteIsNotResumed() {
        var machine = Machine()
        _ = machine.start()
        let conflict = DownloadError.destinationExistsBeforeDownloading(path: "/tmp/x")
        #expect(machine.attemptEnded(1, .failed(conflict)) == .becomeFailed(conflict))
        #expect(!conflict.isResumable)
        #expect(machine.resume() == .none)
    }

    @Test func aPreemptedDownloadStopsAndQueuesAgain() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.preempt() == .stopAttempt(1))
        #expect(machine.slotNeed == .holding)
        #expect(machine.attemptEnded(1, .cancelled) == .becomeQueued)
        #expect(machine.slotNeed == .waiting)
        #expect(machine.start() == .startAttempt(2))
        // A pause while it stops wins.
        _ = machine.preempt()
        #expect(machine.pause() == .none)
        #expect(machine.attemptEnded(2, .cancelled) == .becomePaused(savingIntent: true))
    }

    // MARK: - Challenges

    func challenge(status: Int = 401) -> AuthenticationChallenge {
        AuthenticationChallenge(
            downloadID: Download.ID(), response: ServerResponse(url: nil, statusCode: status, headers: [:]),
            previousFailureCount: 0)
    }

    @Test func challengesAreAnsweredUpToTheLimitThenTheDownloadFailsWithTheStatus() {
        var machine = Machine(challengeLimit: 3)
        let challenge = challenge()
        #expect(machine.start() == .startAttempt(1))
        for attempt in 1...3 {
            #expect(machine.answersChallenges)
            #expect(machine.attemptEnded(attempt, .challenged(challenge)) == .answerChallenge(attempt, challenge))
            #expect(machine.answeredChallenges == attempt)
            // Running while the handler answers: the download keeps its slot.
            #expect(machine.phase == .running(attempt: attempt))
            #expect(
                machine.challengeAnswered(attempt, challenge, refusal: nil)
                    == .startAttempt(attempt + 1, .continuation))
        }
        #expect(!machine.answersChallenges)
        #expect(machine.attemptEnded(4, .challenged(challenge)) == .becomeFailed(.httpStatus(401)))
        #expect(machine.publicState == .failed)
    }

    @Test func withoutAHandlerAChallengeFailsWithItsStatus() {
        var machine = Machine()
        _ = machine.start()
        #expect(!machine.answersChallenges)
        #expect(machine.attemptEnded(1, .challenged(challenge(status: 407))) == .becomeFailed(.httpStatus(407)))
        #expect(machine.answeredChallenges == 0)
    }

    @Test func aRefusedAnswerFailsWithTheChallengesStatus() {
        var machine = Machine(challengeLimit: 3)
        let challenge = challenge()
        _ = machine.start()
        _ = machine.attemptEnded(1, .challenged(challenge))
        #expect(machine.challengeAnswered(1, challenge, refusal: .httpStatus(401)) == .becomeFailed(.httpStatus(401)))
        #expect(machine.challengeAnswered(1, challenge, refusal: nil) == .none)
    }

    @Test func aResumeByRequestAnswersChallengesAgainButARetryDoesNot() {
        var machine = Machine(challengeLimit: 2)
        let challenge = challenge()
        _ = machine.start()
        for attempt in 1...2 {
            _ = machine.attemptEnded(attempt, .challenged(challenge))
            _ = machine.challengeAnswered(attempt, challenge, refusal: nil)
        }
        #expect(!machine.answersChallenges)
        _ = machine.attemptEnded(3, .failed(.httpStatus(503)), recovery: .retry(after: .seconds(1)))
        _ = machine.retryTimerFired(1)
        #expect(machine.start() == .startAttempt(4))
        #expect(machine.answeredChallenges == 2)
        #expect(machine.pause() == .stopAttempt(4))
        #expect(machine.attemptEnded(4, .cancelled) == .becomePaused(savingIntent: true))
        #expect(machine.answeredChallenges == 2)
        #expect(machine.resume() == .becomeQueued(reopening: false))
        #expect(machine.answeredChallenges == 0)
        #expect(machine.answersChallenges)
        _ = machine.start()
        #expect(machine.attemptEnded(5, .challenged(challenge)) == .answerChallenge(5, challenge))
    }

    @Test func aDownloadPausedOrCancelledWhileTheHandlerAnswersDoesThatInstead() {
        var machine = Machine(challengeLimit: 3)
        let challenge = challenge()
        _ = machine.start()
        _ = machine.attemptEnded(1, .challenged(challenge))
        // The request is over: stopping it does nothing, and the answer ends the stop.
        #expect(machine.pause() == .stopAttempt(1))
        #expect(machine.challengeAnswered(1, challenge, refusal: nil) == .becomePaused(savingIntent: true))
        #expect(machine.resume() == .becomeQueued(reopening: false))
        _ = machine.start()
        _ = machine.attemptEnded(2, .challenged(challenge))
        #expect(machine.cancel(keepingPartialData: true) == .stopAttempt(2, keepingPartialData: true))
        #expect(
            machine.challengeAnswered(2, challenge, refusal: .httpStatus(401))
                == .becomeCancelled(keepingPartialData: true))
    }

    // MARK: - Shutting down

    @Test func shuttingDownStopsARunningDownloadAndKeepsItsIntent() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.shutDown(requestOutlivesProcess: false) == .stopAttempt(1))
        #expect(machine.isShutDown)
        #expect(!machine.isSettled)
        #expect(machine.attemptEnded(1, .cancelled) == .becomePaused(savingIntent: false))
        #expect(machine.publicState == .paused)
        // Every later pause keeps it too.
        #expect(machine.resume() == .becomeQueued(reopening: false))
        #expect(machine.pause() == .becomePaused(savingIntent: false))
    }

    @Test func shuttingDownPausesAQueuedOrWaitingDownloadAndKeepsItsIntent() {
        var queued = Machine()
        #expect(queued.shutDown(requestOutlivesProcess: false) == .becomePaused())
        #expect(queued.publicState == .paused)
        var waiting = Machine()
        _ = waiting.start()
        _ = waiting.attemptEnded(1, .failed(.httpStatus(503)), recovery: .retry(after: .seconds(1)))
        #expect(waiting.shutDown(requestOutlivesProcess: false) == .becomePaused())
        #expect(waiting.retryTimerFired(1) == .none)
    }

    @Test func aPauseUnderWayWhenTheManagerShutsDownKeepsTheIntent() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.pause() == .stopAttempt(1))
        #expect(machine.shutDown(requestOutlivesProcess: false) == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .becomePaused(savingIntent: false))
        // A download already paused, ended or being cancelled stays as it is.
        #expect(machine.shutDown(requestOutlivesProcess: false) == .none)
        var cancelling = Machine()
        _ = cancelling.start()
        _ = cancelling.cancel(keepingPartialData: true)
        #expect(cancelling.shutDown(requestOutlivesProcess: false) == .none)
        #expect(cancelling.attemptEnded(1, .cancelled) == .becomeCancelled(keepingPartialData: true))
    }

    @Test func aSystemTaskGoesOnThroughAShutDown() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.shutDown(requestOutlivesProcess: true) == .none)
        #expect(machine.isShutDown)
        #expect(machine.phase == .running(attempt: 1))
    }

    @Test func adoptingATaskRunsItUnlessARequestRunsOrTheDownloadEnded() {
        var machine = Machine(state: .paused)
        #expect(machine.adopt() == .adopt(1))
        #expect(machine.phase == .running(attempt: 1))
        #expect(machine.adopt() == .decline)
    }

    /// Any sequence of requests and attempt ends keeps the invariants: a new attempt starts only
    /// when no other is live (or the live one just ended), attempt numbers only grow, and a
    /// completed or cancelled download stays so.
    @Test func randomSequencesKeepTheInvariants() {
        func liveAttempt(_ phase: Machine.Phase) -> Int? {
            switch phase {
            case .running(let attempt), .stopping(let attempt, _): attempt
            default: nil
            }
        }
        let ends: [TransferEnd] = [
            .finished, .cancelled, .incomplete(progressed: true), .incomplete(progressed: false),
            .restart(reason: "r"), .failed(.httpStatus(503)), .challenged(challenge()),
        ]
        for _ in 0..<500 {
            var machine = Machine(challengeLimit: 2)
            var highestAttempt = 0
            var finishedState: DownloadState?
            for _ in 0..<40 {
                let live = liveAttempt(machine.phase)
                var endedAttempt: Int?
                // Only the inputs whose action types can start or stop a request set these.
                var started: Int?
                var stopped: Int?
                switch Int.random(in: 0..<13) {
                case 9:
                    _ = machine.networkWaitEnded(
                        Int.random(in: 1...3), isNetworkBack: Bool.random(), timeout: .network(.notConnectedToInternet))
                case 10:
                    if case .stopAttempt(let attempt, _) = machine.urlChanged() { stopped = attempt }
                case 7:
                    if case .stopAttempt(let attempt, _) = machine.preempt() { stopped = attempt }
                case 8: _ = machine.retryTimerFired(Int.random(in: 1...3))
                case 0:
                    if case .startAttempt(let attempt) = machine.start() { started = attempt }
                case 1:
                    if case .stopAttempt(let attempt, _) = machine.pause() { stopped = attempt }
                case 2: _ = machine.resume()
                case 3:
                    if case .stopAttempt(let attempt, _, _) = machine.cancel(keepingPartialData: Bool.random()) {
                        stopped = attempt
                    }
                case 4, 5:
                    let attempt = Bool.random() ? (live ?? 1) : Int.random(in: 1...(highestAttempt + 1))
                    endedAttempt = attempt
                    let recoveries: [Machine.Recovery] = [
                        .none, .retry(after: .seconds(1)), .switchURL, .waitForNetwork,
                    ]
                    let action = machine.attemptEnded(
                        attempt, ends.randomElement()!, recovery: recoveries.randomElement()!)
                    if case .startAttempt(let attempt, _) = action { started = attempt }
                case 11:
                    let attempt = Bool.random() ? (live ?? 1) : Int.random(in: 1...(highestAttempt + 1))
                    endedAttempt = attempt
                    let action = machine.challengeAnswered(
                        attempt, challenge(), refusal: Bool.random() ? nil : .httpStatus(401))
                    if case .startAttempt(let attempt, _) = action { started = attempt }
                case 12:
                    if case .stopAttempt(let attempt, _) = machine.shutDown(requestOutlivesProcess: Bool.random()) {
                        stopped = attempt
                    }
                default:
                    // Only a finalizing download is told its file was placed (any other state
                    // stops the program).
                    if machine.phase == .finalizing {
                        _ = machine.finalized(Bool.random() ? .success(file) : .failure(.httpStatus(500)))
                    }
                }
                if let attempt = started {
                    #expect(live == nil || live == endedAttempt, "attempt \(attempt) started while \(live!) was live")
                    #expect(attempt > highestAttempt)
                    highestAttempt = attempt
                }
                if let attempt = stopped {
                    #expect(attempt == live)
                }
                // A download holds a slot exactly while a request is live or its file is moved.
                if liveAttempt(machine.phase) != nil {
                    #expect(machine.slotNeed == .holding)
                }
                if let finishedState {
                    #expect(machine.publicState == finishedState)
                } else if machine.publicState == .completed || machine.publicState == .cancelled {
                    finishedState = machine.publicState
                }
            }
        }
    }
}
