import Foundation
import Testing

@testable import Downstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a URLSession body reaches its receiver when the task is suspended while the receiver cannot
/// take bytes (Apple platforms), without I/O: chunks are small `Data` values.
@Suite(.timeLimit(.minutes(1)))
struct SessionTaskBodyFlowTests {
    typealias Flow = URLSessionTransport.SessionTask.BodyFlow

    static let one = Data([1])
    static let two = Data([2, 2])
    static let three = Data([3, 3, 3])
    static let finished = Flow.End(failure: nil)
    static let timedOut = Flow.End(failure: TransportFailure(code: .timedOut, reason: "timed out"))

    /// Given where a chunk must not be copied (handed straight over, or dropped).
    static func mustNotCopy() -> Data {
        Issue.record("a chunk was copied")
        return Data()
    }

    /// A flow whose receiver refused `one`, with `after` arrived behind it.
    static func held(after: [Data] = []) -> Flow {
        var flow = Flow()
        #expect(flow.chunkArrives { Self.one } == .deliver)
        #expect(flow.refused { Self.one } == .suspendTask)
        for chunk in after {
            #expect(flow.chunkArrives { chunk } == .none)
        }
        return flow
    }

    /// Runs a redelivery whose receiver takes everything; returns the chunks it handed over and
    /// its last action.
    static func redeliverAll(_ flow: inout Flow) -> ([Data], Flow.RedeliveryAction) {
        var delivered: [Data] = []
        while true {
            let action = flow.nextKept()
            guard case .deliver(let chunk) = action else { return (delivered, action) }
            delivered.append(chunk)
            flow.keptChunkTaken()
        }
    }

    // MARK: - Flowing

    @Test func chunksGoStraightToTheReceiverWithoutACopy() {
        var flow = Flow()
        for _ in 0..<3 {
            #expect(flow.chunkArrives(Self.mustNotCopy) == .deliver)
        }
        #expect(flow.state == .flowing(resumeAsked: false))
    }

    @Test func aRefusedChunkIsKeptAndTheTaskSuspended() {
        let flow = Self.held()
        #expect(flow.state == .held(.init(chunks: [Self.one])))
    }

    /// The receiver asked for the bytes again before its refusal was reported: they go again at
    /// once, and the task is never suspended.
    @Test func aResumeBeforeTheRefusalIsReportedDeliversAgainAtOnce() {
        var flow = Flow()
        #expect(flow.chunkArrives { Self.one } == .deliver)
        #expect(flow.resumeBody() == .none)
        #expect(flow.refused(Self.mustNotCopy) == .deliverAgain)
        #expect(flow.state == .flowing(resumeAsked: false))
        #expect(flow.refused { Self.one } == .suspendTask, "a second refusal without a resume holds")
    }

    /// A resume asked before a chunk was handed over answers no refusal of that chunk.
    @Test func aResumeBeforeAChunkArrivesAnswersNoRefusalOfIt() {
        var flow = Flow()
        #expect(flow.resumeBody() == .none)
        #expect(flow.chunkArrives { Self.one } == .deliver)
        #expect(flow.refused { Self.one } == .suspendTask)
    }

    // MARK: - Held and redelivered

    @Test func chunksInFlightAreKeptInOrderAndHandedOverAgainThenTheTaskResumes() {
        var flow = Self.held(after: [Self.two, Self.three])
        #expect(flow.state == .held(.init(chunks: [Self.one, Self.two, Self.three])))
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.resumeBody() == .none, "one redelivery at a time")
        let (delivered, last) = Self.redeliverAll(&flow)
        #expect(delivered == [Self.one, Self.two, Self.three])
        #expect(last == .resumeTask)
        #expect(flow.state == .flowing(resumeAsked: false))
        #expect(flow.chunkArrives { Self.one } == .deliver)
    }

    @Test func chunksArrivingDuringARedeliveryComeAfterTheKeptOnes() {
        var flow = Self.held()
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.nextKept() == .deliver(Self.one))
        #expect(flow.chunkArrives { Self.two } == .none)
        flow.keptChunkTaken()
        #expect(flow.nextKept() == .deliver(Self.two))
        flow.keptChunkTaken()
        #expect(flow.nextKept() == .resumeTask)
    }

    /// A kept chunk refused again: it and the rest stay kept, the task stays suspended, and the
    /// next resume starts from it.
    @Test func aKeptChunkRefusedAgainStaysKeptWithTheRest() {
        var flow = Self.held(after: [Self.two, Self.three])
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.nextKept() == .deliver(Self.one))
        flow.keptChunkTaken()
        #expect(flow.nextKept() == .deliver(Self.two))
        #expect(flow.keptChunkRefused() == .none)
        #expect(flow.state == .held(.init(chunks: [Self.two, Self.three])))
        #expect(flow.resumeBody() == .redeliver)
        let (delivered, last) = Self.redeliverAll(&flow)
        #expect(delivered == [Self.two, Self.three])
        #expect(last == .resumeTask)
    }

    @Test func aResumeDuringTheRedeliveryOfARefusedChunkDeliversItAgain() {
        var flow = Self.held()
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.nextKept() == .deliver(Self.one))
        #expect(flow.resumeBody() == .none)
        #expect(flow.keptChunkRefused() == .deliverAgain)
        #expect(flow.nextKept() == .deliver(Self.one))
        #expect(flow.keptChunkRefused() == .none, "without a new resume, it is held")
        #expect(flow.state == .held(.init(chunks: [Self.one])))
    }

    // MARK: - The end

    @Test func anEndWhileChunksAreKeptComesAfterThemAndTheTaskIsNotResumed() {
        var flow = Self.held(after: [Self.two])
        #expect(flow.complete(Self.finished) == .none)
        #expect(flow.resumeBody() == .redeliver)
        let (delivered, last) = Self.redeliverAll(&flow)
        #expect(delivered == [Self.one, Self.two])
        #expect(last == .complete(Self.finished))
        #expect(flow.state == .ended)
        #expect(flow.resumeBody() == .none, "a resume after the end does nothing")
        #expect(flow.cancel() == .none)
    }

    @Test func anEndDuringARedeliveryComesAfterTheKeptChunks() {
        var flow = Self.held()
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.nextKept() == .deliver(Self.one))
        #expect(flow.complete(Self.timedOut) == .none)
        flow.keptChunkTaken()
        #expect(flow.nextKept() == .complete(Self.timedOut))
    }

    @Test func anEndWhileFlowingIsDeliveredAtOnce() {
        var flow = Flow()
        #expect(flow.chunkArrives { Self.one } == .deliver)
        #expect(flow.complete(Self.timedOut) == .complete(Self.timedOut))
        #expect(flow.state == .ended)
        #expect(flow.resumeBody() == .none)
    }

    // MARK: - Cancel

    /// A cancel while chunks are kept drops them and every later one; the end still comes.
    @Test func aCancelWhileChunksAreKeptDropsThemAndEveryLaterOne() {
        var flow = Self.held(after: [Self.two])
        #expect(flow.cancel() == .none)
        #expect(flow.state == .dropping)
        #expect(flow.chunkArrives(Self.mustNotCopy) == .none)
        #expect(flow.resumeBody() == .none)
        #expect(flow.complete(.init(failure: Self.cancelled)) == .complete(.init(failure: Self.cancelled)))
        #expect(flow.state == .ended)
    }

    static let cancelled = TransportFailure(code: .cancelled, reason: "cancelled")

    /// The redelivery a resume scheduled runs after a cancel: it hands over nothing.
    @Test func aRedeliveryAfterACancelHandsOverNothing() {
        var flow = Self.held()
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.cancel() == .none)
        #expect(flow.nextKept() == .none)
    }

    /// A cancel while the receiver holds a kept chunk: whatever it answers, nothing follows.
    @Test(arguments: [true, false])
    func aCancelDuringARedeliveryStopsIt(taken: Bool) {
        var flow = Self.held(after: [Self.two])
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.nextKept() == .deliver(Self.one))
        #expect(flow.cancel() == .none)
        if taken {
            flow.keptChunkTaken()
        } else {
            #expect(flow.keptChunkRefused() == .none)
        }
        #expect(flow.nextKept() == .none)
        #expect(flow.state == .dropping)
    }

    /// The task completed while its chunks were kept, then the owner cancelled: the receiver gets
    /// no more bytes, and a cancellation (its body is not whole) on the delegate queue.
    @Test func aCancelAfterAKeptEndDeliversACancellation() {
        var flow = Self.held()
        #expect(flow.complete(Self.finished) == .none)
        #expect(flow.cancel() == .complete(Flow.cancellation))
        #expect(flow.state == .ended)
        #expect(Flow.cancellation.failure?.isCancellation == true)
    }

    /// Every kept chunk was taken, the end not yet delivered: a cancel then drops nothing, and the
    /// end is delivered as it was.
    @Test func aCancelAfterEveryKeptChunkWasTakenDeliversTheEndAsItWas() {
        var flow = Self.held()
        #expect(flow.complete(Self.finished) == .none)
        #expect(flow.resumeBody() == .redeliver)
        #expect(flow.nextKept() == .deliver(Self.one))
        flow.keptChunkTaken()
        #expect(flow.cancel() == .complete(Self.finished))
        #expect(flow.nextKept() == .none)
    }

    /// A cancel while nothing is kept: chunks still go to the receiver, until it refuses one,
    /// which is dropped with every later one.
    @Test func aCancelWhileFlowingDropsFromTheNextRefusal() {
        var flow = Flow()
        #expect(flow.cancel() == .none)
        #expect(flow.chunkArrives { Self.one } == .deliver)
        #expect(flow.resumeBody() == .none)
        #expect(flow.refused(Self.mustNotCopy) == .none)
        #expect(flow.state == .dropping)
        #expect(flow.chunkArrives { Self.three } == .none)
        #expect(flow.complete(Self.finished) == .complete(Self.finished))
    }
}
