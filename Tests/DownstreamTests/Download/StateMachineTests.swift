import Foundation
import Testing

@testable import Downstream

@Suite struct StateMachineTests {
    typealias Machine = Download.StateMachine

    let file = URL(fileURLWithPath: "/tmp/file.bin")

    @Test func runsOneAttemptToCompletion() {
        var machine = Machine()
        #expect(machine.start() == .startAttempt(1, .run))
        #expect(machine.publicState == .running)
        #expect(machine.attemptEnded(1, .finished) == .finalize)
        #expect(!machine.isSettled)
        #expect(machine.finalized(.success(file)) == .becomeCompleted(file))
        #expect(machine.publicState == .completed)
    }

    @Test func pauseStopsTheAttemptAndWaitsForItsEnd() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.pause() == .stopAttempt(1))
        #expect(!machine.isSettled)
        #expect(machine.pause() == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .becomePaused)
        #expect(machine.publicState == .paused)
        #expect(machine.slotNeed == .none)
        #expect(machine.resume() == .becomeQueued)
        #expect(machine.slotNeed == .waiting)
        #expect(machine.start() == .startAttempt(2, .run))
    }

    @Test func resumeDuringAPauseStartsANewAttemptOnlyAfterTheOldOneEnded() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.pause()
        #expect(machine.resume() == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .startAttempt(2, .run))
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
        #expect(machine.cancel(keepingPartialData: false) == .stopAttempt(1))
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
        #expect(machine.attemptEnded(1, .cancelled) == .startAttempt(2, .run))
        #expect(machine.attemptEnded(1, .finished) == .none)
        #expect(machine.state == .running(attempt: 2))
    }

    @Test func aFailureIsResumable() {
        var machine = Machine()
        _ = machine.start()
        let error = DownloadError.network(.networkConnectionLost)
        #expect(machine.attemptEnded(1, .failed(error)) == .becomeFailed(error))
        #expect(machine.publicState == .failed)
        #expect(machine.resume() == .becomeQueued)
        #expect(machine.start() == .startAttempt(2, .run))
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
        #expect(machine.attemptEnded(attempt, .cancelled) == .startAttempt(attempt + 1, .run))
        #expect(machine.attemptEnded(attempt + 1, .restart(reason: "odd")) == .startAttempt(attempt + 2, .restart))
    }

    @Test func pausingAQueuedDownloadNeedsNoAttempt() {
        var machine = Machine()
        #expect(machine.pause() == .becomePaused)
        #expect(machine.start() == .none)
        #expect(machine.resume() == .becomeQueued)
        #expect(machine.start() == .startAttempt(1, .run))
    }

    @Test func aFailedFinalizationIsAResumableFailure() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.attemptEnded(1, .finished)
        let error = DownloadError.destinationExists(path: "/tmp/x")
        #expect(machine.finalized(.failure(error)) == .becomeFailed(error))
        #expect(machine.resume() == .becomeQueued)
        #expect(machine.start() == .startAttempt(2, .run))
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
        #expect(machine.start() == .startAttempt(2, .run))
        // Counting goes on until the download is resumed by request.
        #expect(
            machine.attemptEnded(2, .failed(error), recovery: .retry(after: .seconds(4)))
                == .scheduleRetry(2, after: .seconds(4), error: error))
        #expect(machine.retries == 2)
        #expect(machine.resume() == .becomeQueued)
        #expect(machine.retries == 0)
        #expect(machine.retryTimerFired(2) == .none)
    }

    @Test func aDownloadWaitingToRetryCanBePausedOrCancelled() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.attemptEnded(1, .failed(.network(.timedOut)), recovery: .retry(after: .seconds(1)))
        #expect(machine.pause() == .becomePaused)
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
        #expect(machine.start() == .startAttempt(3, .run))

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
        #expect(machine.pause() == .becomePaused)
        #expect(machine.networkWaitEnded(1, isNetworkBack: true, timeout: error) == .none)
        #expect(machine.resume() == .becomeQueued)
        _ = machine.start()
        _ = machine.attemptEnded(2, .failed(error), recovery: .waitForNetwork)
        // Resuming tries at once.
        #expect(machine.resume() == .becomeQueued)
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
        #expect(machine.attemptEnded(1, .cancelled) == .startAttempt(2, .run))
        // Not running: the next request takes the URL; nothing to do now.
        #expect(machine.pause() == .stopAttempt(2))
        #expect(machine.urlChanged() == .none)
        #expect(machine.attemptEnded(2, .cancelled) == .becomePaused)
        #expect(machine.urlChanged() == .none)
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
        #expect(machine.start() == .startAttempt(2, .run))
        // A pause while it stops wins.
        _ = machine.preempt()
        #expect(machine.pause() == .none)
        #expect(machine.attemptEnded(2, .cancelled) == .becomePaused)
    }

    /// Any sequence of requests and attempt ends keeps the invariants: a new attempt starts only
    /// when no other is live (or the live one just ended), attempt numbers only grow, and a
    /// completed or cancelled download stays so.
    @Test func randomSequencesKeepTheInvariants() {
        func liveAttempt(_ state: Machine.State) -> Int? {
            switch state {
            case .running(let attempt), .stopping(let attempt, _): attempt
            default: nil
            }
        }
        let ends: [TransferEnd] = [
            .finished, .cancelled, .incomplete(progressed: true), .incomplete(progressed: false),
            .restart(reason: "r"), .failed(.httpStatus(503)),
        ]
        for _ in 0..<500 {
            var machine = Machine()
            var highestAttempt = 0
            var finishedState: DownloadState?
            for _ in 0..<40 {
                let live = liveAttempt(machine.state)
                var endedAttempt: Int?
                let action: Machine.Action
                switch Int.random(in: 0..<11) {
                case 9:
                    action = machine.networkWaitEnded(
                        Int.random(in: 1...3), isNetworkBack: Bool.random(), timeout: .network(.notConnectedToInternet))
                case 10: action = machine.urlChanged()
                case 7: action = machine.preempt()
                case 8: action = machine.retryTimerFired(Int.random(in: 1...3))
                case 0: action = machine.start()
                case 1: action = machine.pause()
                case 2: action = machine.resume()
                case 3: action = machine.cancel(keepingPartialData: Bool.random())
                case 4, 5:
                    let attempt = Bool.random() ? (live ?? 1) : Int.random(in: 1...(highestAttempt + 1))
                    endedAttempt = attempt
                    let recoveries: [Machine.Recovery] = [
                        .none, .retry(after: .seconds(1)), .switchURL, .waitForNetwork,
                    ]
                    action = machine.attemptEnded(attempt, ends.randomElement()!, recovery: recoveries.randomElement()!)
                default:
                    action = machine.finalized(Bool.random() ? .success(file) : .failure(.httpStatus(500)))
                }
                if case .startAttempt(let attempt, _) = action {
                    #expect(live == nil || live == endedAttempt, "attempt \(attempt) started while \(live!) was live")
                    #expect(attempt > highestAttempt)
                    highestAttempt = attempt
                }
                if case .stopAttempt(let attempt) = action {
                    #expect(attempt == live)
                }
                // A download holds a slot exactly while a request is live or its file is moved.
                if liveAttempt(machine.state) != nil {
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
