import Foundation
import Testing

@testable import Downstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLSession request held back by suspending its task (Apple platforms), driven on Linux with a
/// scripted task in place of URLSession's: the test plays URLSession's callbacks on a serial
/// delegate queue, and waits for both queues to be idle instead of sleeping.
@Suite(.timeLimit(.minutes(1)))
struct SessionTaskSuspendingTests {
    /// A URLSession task that records what it is asked to do.
    final class ScriptedTask: URLSessionTransport.ControlledTask {
        enum Call: Equatable, Sendable { case resume, suspend, cancel }
        private let log = Locked<[Call]>([])

        var calls: [Call] { log.withLock { $0 } }
        func resume() { log.withLock { $0.append(.resume) } }
        func suspend() { log.withLock { $0.append(.suspend) } }
        func cancel() { log.withLock { $0.append(.cancel) } }
    }

    /// Takes as many chunks as it is allowed, refuses the others; records everything it is told.
    final class Receiver: TransportReceiver {
        enum Event: Equatable, Sendable {
            case taken([UInt8])
            case refused([UInt8])
            case end(URLError.Code?)
        }

        private struct State {
            /// How many more chunks it takes; nil: all.
            var allowance: Int?
            /// Whether it asks for the bytes again as it refuses them (before its answer reaches
            /// the transport), and takes them then.
            var resumesAsItRefuses = false
            var events: [Event] = []
        }

        private let state = Locked(State())

        var events: [Event] { state.withLock { $0.events } }

        /// Takes `count` more chunks (nil: every chunk), then refuses.
        func allow(_ count: Int?) {
            state.withLock { $0.allowance = count }
        }

        /// Refuses the next chunk, asking for it again at once.
        func resumeAsItRefuses() {
            state.withLock { state in
                state.allowance = 0
                state.resumesAsItRefuses = true
            }
        }

        func willRedirect(
            _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
        ) {
            answer(proposed)
        }
        func didReceive(_ response: ServerResponse) {}
        func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
            let (reception, resumes) = state.withLock { state -> (BodyReception, Bool) in
                if let allowance = state.allowance, allowance == 0 {
                    state.events.append(.refused(Array(bytes)))
                    defer {
                        if state.resumesAsItRefuses {
                            state.resumesAsItRefuses = false
                            state.allowance = nil
                        }
                    }
                    return (.later, state.resumesAsItRefuses)
                }
                state.allowance = state.allowance.map { $0 - 1 }
                state.events.append(.taken(Array(bytes)))
                return (.taken, false)
            }
            if resumes {
                task.resumeBody()
            }
            return reception
        }
        func didComplete(_ failure: TransportFailure?) {
            state.withLock { $0.events.append(.end(failure?.code)) }
        }
    }

    /// A session task in suspending mode, its scripted URLSession task, and the two queues.
    final class Harness: Sendable {
        let receiver = Receiver()
        let scripted = ScriptedTask()
        let task: URLSessionTransport.SessionTask
        let controlQueue = DispatchQueue(label: "test.control")
        /// The delegate queue's Dispatch queue, kept alive (`underlyingQueue` is unowned on Linux).
        private let dispatchQueue = DispatchQueue(label: "test.delegate")
        let delegateQueue: OperationQueue

        init() async {
            delegateQueue = OperationQueue()
            delegateQueue.maxConcurrentOperationCount = 1
            delegateQueue.underlyingQueue = dispatchQueue
            task = URLSessionTransport.SessionTask(
                receiver: receiver, controlQueue: controlQueue,
                delegateQueue: SendableOperationQueue(queue: delegateQueue), holdBack: .suspendingTask)
            let (task, scripted) = (self.task, self.scripted)
            controlQueue.async { task.attach(scripted) }
            await settle()
        }

        /// URLSession hands over the next chunk of the body.
        func send(_ bytes: [UInt8]) {
            delegateQueue.addOperation { [task] in bytes.withUnsafeBytes { task.deliver($0) } }
        }

        /// URLSession completes the task.
        func complete(_ code: URLError.Code? = nil) {
            delegateQueue.addOperation { [task] in task.didComplete(with: code.map { URLError($0) }) }
        }

        /// Returns once the delegate queue, then the control queue, ran everything asked of them.
        func settle() async {
            await withCheckedContinuation { done in delegateQueue.addOperation { done.resume() } }
            await withCheckedContinuation { done in controlQueue.async { done.resume() } }
        }

        /// Returns once the delegate queue ran everything asked of it.
        func settleDelegateQueue() async {
            await withCheckedContinuation { done in delegateQueue.addOperation { done.resume() } }
        }
    }

    static let (a, b, c, d): ([UInt8], [UInt8], [UInt8], [UInt8]) = ([1], [2, 2], [3, 3, 3], [4])

    @Test func onlyASuspendedTaskWaitsAlone() async {
        #expect(await Harness().task.waitsAlone)
        let blocking = URLSessionTransport.SessionTask(
            receiver: Receiver(), controlQueue: DispatchQueue(label: "test.control"),
            delegateQueue: SendableOperationQueue(queue: OperationQueue()), holdBack: .blockingDelegateQueue)
        #expect(!blocking.waitsAlone)
    }

    /// The receiver refuses: the chunk is kept, the task suspended, the callback returns (the
    /// delegate queue goes on: later chunks are kept behind it). After the resume all come, in
    /// order, then the task is resumed and chunks go straight over again.
    @Test func refusedAndLaterChunksAreKeptThenHandedOverInOrderBeforeTheTaskResumes() async {
        let harness = await Harness()
        harness.receiver.allow(0)
        harness.send(Self.a)
        await harness.settle()
        #expect(harness.scripted.calls == [.resume, .suspend])
        harness.send(Self.b)
        harness.send(Self.c)
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a)], "chunks after the suspend are kept, not handed over")

        harness.receiver.allow(nil)
        harness.task.resumeBody()
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a), .taken(Self.a), .taken(Self.b), .taken(Self.c)])
        #expect(harness.scripted.calls == [.resume, .suspend, .resume])

        harness.send(Self.d)
        harness.complete()
        await harness.settle()
        #expect(harness.receiver.events.suffix(2) == [.taken(Self.d), .end(nil)])
        #expect(harness.scripted.calls == [.resume, .suspend, .resume])
    }

    /// A kept chunk refused again: it and the rest stay kept, and the task stays suspended.
    @Test func aKeptChunkRefusedAgainStaysKeptAndTheTaskSuspended() async {
        let harness = await Harness()
        harness.receiver.allow(0)
        harness.send(Self.a)
        harness.send(Self.b)
        harness.send(Self.c)
        await harness.settle()

        harness.receiver.allow(1)
        harness.task.resumeBody()
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a), .taken(Self.a), .refused(Self.b)])
        #expect(harness.scripted.calls == [.resume, .suspend], "still suspended")

        harness.receiver.allow(nil)
        harness.task.resumeBody()
        await harness.settle()
        #expect(harness.receiver.events.suffix(2) == [.taken(Self.b), .taken(Self.c)])
        #expect(harness.scripted.calls == [.resume, .suspend, .resume])
    }

    /// The end arrives while chunks are kept (it was in flight): it comes after them, and the
    /// completed task is not resumed.
    @Test func anEndWhileChunksAreKeptComesAfterThem() async {
        let harness = await Harness()
        harness.receiver.allow(0)
        harness.send(Self.a)
        harness.send(Self.b)
        harness.complete()
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a)])

        harness.receiver.allow(nil)
        harness.task.resumeBody()
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a), .taken(Self.a), .taken(Self.b), .end(nil)])
        #expect(harness.scripted.calls == [.resume, .suspend])
    }

    /// A cancel while chunks are kept drops them and every chunk after them; the end still comes.
    @Test func aCancelWhileChunksAreKeptDropsThemAndTheEndStillComes() async {
        let harness = await Harness()
        harness.receiver.allow(0)
        harness.send(Self.a)
        harness.send(Self.b)
        await harness.settle()

        harness.receiver.allow(nil)
        harness.task.cancel()
        harness.task.resumeBody()
        harness.send(Self.c)
        harness.complete(.cancelled)
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a), .end(.cancelled)])
        #expect(harness.scripted.calls == [.resume, .suspend, .cancel])
    }

    /// The task completed while its chunks were kept, then the owner cancelled: no more bytes, and
    /// the end, a cancellation, comes on the delegate queue.
    @Test func aCancelAfterAKeptEndDeliversACancellation() async {
        let harness = await Harness()
        harness.receiver.allow(0)
        harness.send(Self.a)
        harness.complete()
        await harness.settle()

        harness.task.cancel()
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a), .end(.cancelled)])
        harness.task.resumeBody()
        await harness.settle()
        #expect(harness.receiver.events.count == 2, "nothing after the end")
    }

    /// The receiver asks for the bytes again before its refusal reaches the transport: they come
    /// again at once, and the task is never suspended.
    @Test func aResumeBeforeTheRefusalIsReportedDeliversAgainWithoutSuspending() async {
        let harness = await Harness()
        harness.receiver.resumeAsItRefuses()
        harness.send(Self.a)
        harness.send(Self.b)
        await harness.settle()
        #expect(harness.receiver.events == [.refused(Self.a), .taken(Self.a), .taken(Self.b)])
        #expect(harness.scripted.calls == [.resume])
    }

    /// The resume comes before the control queue ran the suspend: the chunks are handed over, and
    /// the task is suspended, then resumed, in that order.
    @Test func aResumeBeforeTheSuspendRanKeepsTheControlCallsInOrder() async {
        let harness = await Harness()
        harness.controlQueue.suspend()
        harness.receiver.allow(0)
        harness.send(Self.a)
        await harness.settleDelegateQueue()
        harness.receiver.allow(nil)
        harness.task.resumeBody()
        await harness.settleDelegateQueue()
        #expect(harness.receiver.events == [.refused(Self.a), .taken(Self.a)])
        #expect(harness.scripted.calls == [.resume], "the control queue has not run the suspend yet")

        harness.controlQueue.resume()
        await harness.settle()
        #expect(harness.scripted.calls == [.resume, .suspend, .resume])
    }

    @Test func aResumeAfterTheEndDoesNothing() async {
        let harness = await Harness()
        harness.send(Self.a)
        harness.complete()
        await harness.settle()
        harness.task.resumeBody()
        await harness.settle()
        #expect(harness.receiver.events == [.taken(Self.a), .end(nil)])
        #expect(harness.scripted.calls == [.resume])
    }
}
