import Foundation
import Testing

@testable import Downstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of a system download task, without I/O: the task is a string.
@Suite struct SystemTransferStateMachineTests {
    typealias Machine = SystemTransfer.StateMachine<String>

    static let cancelled = TransportFailure(code: .cancelled, reason: "cancelled")
    static let connectionLost = TransportFailure(code: .networkConnectionLost, reason: "the connection was lost")

    /// The network failure a task that ended with `failure` reports.
    static func networkFailure(_ failure: TransportFailure) -> TransferEnd {
        .failed(.network(failure.code, reason: failure.reason))
    }

    /// A machine whose task `task` was handed over.
    static func running(usesResumeData: Bool = false, _ task: String = "task") -> Machine {
        var machine = Machine(usesResumeData: usesResumeData)
        #expect(machine.attach(task) == .none)
        return machine
    }

    // MARK: - Attaching and stopping

    @Test func aTaskHandedOverRuns() {
        var machine = Machine(usesResumeData: false)
        #expect(machine.state == .awaitingTask)
        #expect(machine.task == nil)
        #expect(machine.attach("task") == .none)
        #expect(machine.state == .running(.init(task: "task")))
        #expect(machine.task == "task")
        #expect(machine.takeEnd() == nil)
    }

    @Test(arguments: [false, true])
    func aStopBeforeTheTaskCancelsItOnceHandedOver(keepingResumeData: Bool) {
        var machine = Machine(usesResumeData: false)
        #expect(machine.stop(keepingResumeData: keepingResumeData) == .none)
        #expect(machine.state == .stoppedBeforeTask(keepingResumeData: keepingResumeData))
        #expect(machine.attach("task") == .cancel("task", keepingResumeData: keepingResumeData))
        #expect(machine.state == .stopping(.init(task: "task"), awaitsResumeData: keepingResumeData))
        #expect(machine.task == "task")
    }

    @Test(arguments: [false, true])
    func aStopAfterTheTaskCancelsItAtOnce(keepingResumeData: Bool) {
        var machine = Self.running()
        #expect(
            machine.stop(keepingResumeData: keepingResumeData) == .cancel("task", keepingResumeData: keepingResumeData))
        #expect(machine.state == .stopping(.init(task: "task"), awaitsResumeData: keepingResumeData))
    }

    @Test(arguments: [false, true])
    func theFirstStopDecides(keepingResumeData: Bool) {
        var beforeTask = Machine(usesResumeData: false)
        #expect(beforeTask.stop(keepingResumeData: keepingResumeData) == .none)
        #expect(beforeTask.stop(keepingResumeData: !keepingResumeData) == .none)
        #expect(beforeTask.attach("task") == .cancel("task", keepingResumeData: keepingResumeData))

        var running = Self.running()
        #expect(
            running.stop(keepingResumeData: keepingResumeData) == .cancel("task", keepingResumeData: keepingResumeData))
        #expect(running.stop(keepingResumeData: !keepingResumeData) == .none)
        #expect(running.state == .stopping(.init(task: "task"), awaitsResumeData: keepingResumeData))
    }

    // MARK: - Stopping and completing

    @Test func aPauseReportsItsEndOnceTheResumeDataCameAfterTheCompletion() {
        var machine = Self.running()
        #expect(machine.stop(keepingResumeData: true) == .cancel("task", keepingResumeData: true))
        #expect(machine.completed(error: Self.cancelled) == .none)
        #expect(machine.state == .awaitingResumeData(end: .cancelled))
        #expect(machine.task == nil)
        #expect(machine.takeEnd() == nil, "the end was taken before the resume data was saved")
        #expect(machine.cancelAnswered() == .reportEnd)
        #expect(machine.takeEnd() == .cancelled)
    }

    @Test func aPauseReportsItsEndAtTheCompletionWhenTheResumeDataCameFirst() {
        var machine = Self.running()
        #expect(machine.stop(keepingResumeData: true) == .cancel("task", keepingResumeData: true))
        #expect(machine.cancelAnswered() == .none)
        #expect(machine.state == .stopping(.init(task: "task"), awaitsResumeData: false))
        #expect(machine.takeEnd() == nil)
        #expect(machine.completed(error: Self.cancelled) == .reportEnd)
        #expect(machine.takeEnd() == .cancelled)
    }

    @Test(arguments: [false, true])
    func aCancelReportsItsEndAtTheCompletion(answeredFirst: Bool) {
        var machine = Self.running()
        #expect(machine.stop(keepingResumeData: false) == .cancel("task", keepingResumeData: false))
        if answeredFirst {
            #expect(machine.cancelAnswered() == .none)
        }
        #expect(machine.completed(error: Self.cancelled) == .reportEnd)
        if !answeredFirst {
            // The answer of a cancellation that asked for no resume data comes after: no second report.
            #expect(machine.cancelAnswered() == .none)
        }
        #expect(machine.takeEnd() == .cancelled)
    }

    @Test func aStopBeforeTheTaskEndsCancelledToo() {
        var machine = Machine(usesResumeData: false)
        _ = machine.stop(keepingResumeData: true)
        _ = machine.attach("task")
        #expect(machine.completed(error: Self.cancelled) == .none)
        #expect(machine.cancelAnswered() == .reportEnd)
        #expect(machine.takeEnd() == .cancelled)
    }

    @Test func aCancellationNobodyAskedForIsAFailure() {
        var machine = Self.running()
        #expect(machine.completed(error: Self.cancelled) == .reportEnd)
        #expect(machine.takeEnd() == Self.networkFailure(Self.cancelled))
    }

    @Test(arguments: [false, true])
    func aStopAfterTheCompletionDoesNothing(taken: Bool) {
        var machine = Self.running()
        #expect(machine.completed(error: Self.connectionLost) == .reportEnd)
        if taken {
            #expect(machine.takeEnd() == Self.networkFailure(Self.connectionLost))
        }
        #expect(machine.stop(keepingResumeData: true) == .none)
        #expect(machine.stop(keepingResumeData: false) == .none)
        let end = Self.networkFailure(Self.connectionLost)
        #expect(machine.state == (taken ? .endTaken(end) : .ended(end)))
    }

    @Test func aStopWhileAwaitingTheResumeDataDoesNothing() {
        var machine = Self.running()
        _ = machine.stop(keepingResumeData: true)
        _ = machine.completed(error: Self.cancelled)
        #expect(machine.stop(keepingResumeData: false) == .none)
        #expect(machine.state == .awaitingResumeData(end: .cancelled))
    }

    // MARK: - How the task ends

    @Test(arguments: [false, true])
    func aKeptFileFinishesTheTask(stoppedMeanwhile: Bool) {
        var machine = Self.running()
        #expect(!machine.hasKeptFile)
        machine.receivedBytes()
        machine.fileHandedOver(.kept)
        #expect(machine.hasKeptFile)
        if stoppedMeanwhile {
            // The file came before the cancellation took effect: it is the file.
            #expect(machine.stop(keepingResumeData: true) == .cancel("task", keepingResumeData: true))
            #expect(machine.completed(error: Self.cancelled) == .none)
            #expect(machine.hasKeptFile)
            #expect(machine.cancelAnswered() == .reportEnd)
        } else {
            #expect(machine.completed(error: nil) == .reportEnd)
        }
        #expect(machine.hasKeptFile)
        #expect(machine.takeEnd() == .finished)
        #expect(machine.hasKeptFile)
    }

    @Test(arguments: [false, true])
    func aFileThatWasNotKeptDecidesTheFailure(taskFailedToo: Bool) {
        var machine = Self.running()
        machine.fileHandedOver(.failed(.httpStatus(404)))
        #expect(!machine.hasKeptFile)
        #expect(machine.completed(error: taskFailedToo ? Self.connectionLost : nil) == .reportEnd)
        #expect(machine.takeEnd() == .failed(.httpStatus(404)))
        #expect(!machine.hasKeptFile)
    }

    @Test func aTaskThatCompletesWithoutAFileOrAnErrorFails() {
        var machine = Self.running()
        #expect(machine.completed(error: nil) == .reportEnd)
        #expect(machine.takeEnd() == .failed(.unexpectedResponse("the system finished the task without a file")))
        #expect(!machine.hasKeptFile)
    }

    @Test func rejectedResumeDataRestartsTheFile() {
        var machine = Self.running(usesResumeData: true)
        let error = TransportFailure(code: .cannotDecodeRawData, reason: "cannot decode raw data")
        #expect(machine.completed(error: error) == .reportEnd)
        #expect(
            machine.takeEnd()
                == .restart(reason: "the system could not resume from its resume data (cannot decode raw data)"))
    }

    @Test func aTaskFromResumeDataThatReceivedBytesFailsAsAnyOther() {
        var machine = Self.running(usesResumeData: true)
        machine.receivedBytes()
        #expect(machine.completed(error: Self.connectionLost) == .reportEnd)
        #expect(machine.takeEnd() == Self.networkFailure(Self.connectionLost))
    }

    @Test func aTaskNotFromResumeDataFailsBeforeAnyByte() {
        var machine = Self.running(usesResumeData: false)
        #expect(machine.completed(error: Self.connectionLost) == .reportEnd)
        #expect(machine.takeEnd() == Self.networkFailure(Self.connectionLost))
    }

    @Test func aStopWinsOverRejectedResumeData() {
        var machine = Self.running(usesResumeData: true)
        _ = machine.stop(keepingResumeData: false)
        #expect(machine.completed(error: Self.cancelled) == .reportEnd)
        #expect(machine.takeEnd() == .cancelled)
    }

    @Test func bytesReceivedWhileStoppingCount() {
        var machine = Self.running(usesResumeData: true)
        _ = machine.stop(keepingResumeData: false)
        machine.receivedBytes()
        #expect(
            machine.state == .stopping(.init(task: "task", hasReceivedBytes: true), awaitsResumeData: false))
        #expect(machine.completed(error: Self.connectionLost) == .reportEnd)
        #expect(machine.takeEnd() == Self.networkFailure(Self.connectionLost))
    }

    // MARK: - Adoption at relaunch

    @Test func anAdoptedTaskRunsAndIsTakenOnByItsDownload() {
        var machine = Machine(usesResumeData: false, task: "earlier")
        #expect(machine.state == .running(.init(task: "earlier")))
        #expect(machine.task == "earlier")
        #expect(machine.attempt == nil)
        machine.takeOn(attempt: 3)
        #expect(machine.attempt == 3)
        machine.receivedBytes()
        machine.fileHandedOver(.kept)
        #expect(machine.completed(error: nil) == .reportEnd)
        #expect(machine.takeEnd() == .finished)
        #expect(machine.attempt == 3)
    }

    @Test func anAdoptedTaskThatEndedBeforeItsDownloadTookItOnKeepsItsEnd() {
        var machine = Machine(usesResumeData: false, task: "earlier")
        machine.fileHandedOver(.kept)
        #expect(machine.completed(error: nil) == .reportEnd)
        machine.takeOn(attempt: 1)
        #expect(machine.takeEnd() == .finished)
        #expect(machine.hasKeptFile)
    }

    @Test func anAdoptedTaskNoDownloadWantsIsCancelled() {
        var machine = Machine(usesResumeData: false, task: "earlier")
        #expect(machine.stop(keepingResumeData: false) == .cancel("earlier", keepingResumeData: false))
        #expect(machine.completed(error: Self.cancelled) == .reportEnd)
        #expect(machine.takeEnd() == .cancelled)
        #expect(machine.attempt == nil)
    }

    @Test func anAdoptedTaskThatFinishedIsStoppedInVain() {
        var machine = Machine(usesResumeData: false, task: "earlier")
        machine.fileHandedOver(.kept)
        #expect(machine.completed(error: nil) == .reportEnd)
        #expect(machine.stop(keepingResumeData: false) == .none)
        #expect(machine.takeEnd() == .finished)
        #expect(machine.hasKeptFile)
    }

    // MARK: - Repeated and late events

    @Test func theEndIsTakenOnce() {
        var machine = Self.running()
        _ = machine.completed(error: Self.connectionLost)
        #expect(machine.takeEnd() == Self.networkFailure(Self.connectionLost))
        #expect(machine.takeEnd() == nil)
        #expect(machine.state == .endTaken(Self.networkFailure(Self.connectionLost)))
    }

    @Test(arguments: [false, true])
    func aSecondCompletionChangesNothing(taken: Bool) {
        var machine = Self.running()
        machine.fileHandedOver(.kept)
        #expect(machine.completed(error: nil) == .reportEnd)
        if taken {
            #expect(machine.takeEnd() == .finished)
        }
        #expect(machine.completed(error: Self.connectionLost) == .none)
        #expect(machine.completed(error: nil) == .none)
        #expect(machine.state == (taken ? .endTaken(.finished) : .ended(.finished)))
    }

    @Test func aSecondCompletionWhileAwaitingTheResumeDataChangesNothing() {
        var machine = Self.running()
        _ = machine.stop(keepingResumeData: true)
        #expect(machine.completed(error: Self.cancelled) == .none)
        #expect(machine.completed(error: Self.connectionLost) == .none)
        #expect(machine.state == .awaitingResumeData(end: .cancelled))
        #expect(machine.cancelAnswered() == .reportEnd)
        #expect(machine.cancelAnswered() == .none)
        #expect(machine.takeEnd() == .cancelled)
    }

    @Test(arguments: [false, true])
    func lateEventsChangeNothing(taken: Bool) {
        var machine = Self.running()
        _ = machine.completed(error: Self.connectionLost)
        if taken {
            _ = machine.takeEnd()
        }
        let end = Self.networkFailure(Self.connectionLost)
        let state: Machine.State = taken ? .endTaken(end) : .ended(end)
        machine.receivedBytes()
        machine.fileHandedOver(.kept)
        machine.fileHandedOver(.failed(.httpStatus(500)))
        #expect(machine.cancelAnswered() == .none)
        #expect(machine.state == state)
        #expect(!machine.hasKeptFile)
        #expect(machine.task == nil)
        #expect(machine.takeEnd() == (taken ? nil : end))
    }

    @Test func lateEventsWhileAwaitingTheResumeDataChangeNothing() {
        var machine = Self.running()
        _ = machine.stop(keepingResumeData: true)
        _ = machine.completed(error: Self.cancelled)
        machine.receivedBytes()
        machine.fileHandedOver(.kept)
        #expect(machine.state == .awaitingResumeData(end: .cancelled))
        #expect(!machine.hasKeptFile)
    }
}
