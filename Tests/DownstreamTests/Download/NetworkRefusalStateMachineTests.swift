import Foundation
import Testing

@testable import Downstream

/// The machine's part when a download's network access forbids the network there is: a download
/// given a slot waits without a request, a running one stops and then waits, no retry is counted,
/// and a pause or cancel meanwhile wins.
@Suite struct NetworkRefusalStateMachineTests {
    typealias Machine = Download.StateMachine<Int, Int, Int>

    let refusal = DownloadError.network(.notConnectedToInternet, unavailableReason: .expensive)

    @Test func aQueuedDownloadWaitsWithoutARequest() {
        var machine = Machine()
        #expect(machine.networkRefused(refusal) == .waitForNetwork(1, error: refusal))
        #expect(machine.phase == .waitingForNetwork(wait: 1, error: refusal))
        #expect(machine.slotNeed == .none)
        #expect(machine.networkWaitEnded(1, isNetworkBack: true, timeout: refusal) == .becomeQueued)
        #expect(machine.start() == .startAttempt(1))
    }

    @Test func aRunningDownloadStopsThenWaitsAndSpendsNoRetry() {
        var machine = Machine()
        _ = machine.start()
        machine.attemptStarted(1, 42)
        #expect(machine.networkRefused(refusal) == .stopAttempt(1, handle: 42))
        #expect(machine.publicState == .running)
        #expect(machine.slotNeed == .holding)
        // A second change while it stops changes nothing.
        #expect(machine.networkRefused(refusal) == .none)
        #expect(machine.attemptEnded(1, .cancelled) == .waitForNetwork(1, error: refusal))
        #expect(machine.publicState == .waitingForNetwork)
        #expect(machine.retries == 0)
        // Waiting already: nothing more to do.
        #expect(machine.networkRefused(refusal) == .none)
    }

    @Test func aPauseOrACancelWhileItStopsWins() {
        var paused = Machine()
        _ = paused.start()
        _ = paused.networkRefused(refusal)
        #expect(paused.pause() == .none)
        #expect(paused.attemptEnded(1, .cancelled) == .becomePaused(savingIntent: true))

        var cancelled = Machine()
        _ = cancelled.start()
        _ = cancelled.networkRefused(refusal)
        #expect(cancelled.cancel(keepingPartialData: true) == .none)
        #expect(cancelled.attemptEnded(1, .cancelled) == .becomeCancelled(keepingPartialData: true))
    }

    @Test func aStopThatCameTooLateDeliversTheFile() {
        var machine = Machine()
        _ = machine.start()
        _ = machine.networkRefused(refusal)
        #expect(machine.attemptEnded(1, .finished) == .finalize)
    }
}
