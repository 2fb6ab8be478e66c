import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport.SessionTask {
    /// How the body reaches the receiver when the task is suspended while the receiver cannot take
    /// bytes (``URLSessionTransport/HoldBack/suspendingTask``), as a value: each input returns
    /// what to do.
    ///
    /// No I/O happens here and nothing is locked: ``URLSessionTransport/SessionTask`` feeds its
    /// delegate callbacks, its redeliveries and its owner's requests in under its lock, and
    /// performs the actions (calling the receiver, suspending or resuming the task through the
    /// control queue, scheduling a redelivery on the delegate queue) after the lock is released.
    ///
    /// Chunks flow straight to the receiver. The first it refuses is kept (copied) and the task
    /// suspended; chunks already in flight are kept behind it, and so is the end if it comes. After
    /// `resumeBody()` one redelivery on the delegate queue hands the kept chunks over again, in
    /// order; when all are taken the task is resumed (or the kept end delivered), and when one is
    /// refused again the rest stay kept and the task stays suspended. A cancel while chunks are kept
    /// drops them and every byte after them, so the receiver's bytes stay one piece from the start
    /// of the body; the end is still delivered.
    ///
    /// Arrivals, redeliveries and the end all run on the session's serial delegate queue, one at a
    /// time; `resumeBody()` and `cancel()` may come from any thread, at any moment.
    struct BodyFlow: Sendable {
        enum State: Equatable, Sendable {
            /// Chunks go straight to the receiver. `resumeAsked`: a `resumeBody()` came since the
            /// last chunk was handed over (it may answer that chunk's refusal before it is reported).
            case flowing(resumeAsked: Bool)
            /// The receiver refused `backlog`'s first chunk; the task is suspended (or about to be);
            /// waiting for `resumeBody()`.
            case held(Backlog)
            /// A redelivery of `backlog` is scheduled on the delegate queue, or under way;
            /// `resumeAsked`: a `resumeBody()` came since its last chunk was handed over.
            case redelivering(Backlog, resumeAsked: Bool)
            /// Cancelled while nothing was kept: chunks still go straight to the receiver until it
            /// refuses one.
            case cancelled
            /// Cancelled while bytes waited: nothing reaches the receiver any more but the end.
            case dropping
            /// The end was delivered (or is scheduled to be).
            case ended
        }

        /// What waits for the receiver: body chunks, in order, and possibly the end behind them.
        struct Backlog: Equatable, Sendable {
            var chunks: [Data]
            /// How the request ended, once URLSession said so.
            var end: End?
        }

        /// How a request ended: completely (`failure` nil) or not.
        struct End: Equatable, Sendable {
            var failure: TransportFailure?
        }

        enum ArrivalAction: Equatable, Sendable {
            /// Hand the chunk to the receiver.
            case deliver
            /// Nothing: the chunk was kept behind others, or dropped.
            case none
        }

        enum RefusalAction: Equatable, Sendable {
            /// A `resumeBody()` came meanwhile: hand the same chunk over again, now.
            case deliverAgain
            /// The chunk is kept: suspend the task.
            case suspendTask
            /// The request was cancelled: the chunk is dropped.
            case none
        }

        enum ResumeAction: Equatable, Sendable {
            /// Schedule a redelivery of the kept chunks on the delegate queue.
            case redeliver
            case none
        }

        enum RedeliveryAction: Equatable, Sendable {
            /// Hand this kept chunk to the receiver.
            case deliver(Data)
            /// Every kept chunk was taken: resume the task.
            case resumeTask
            /// Every kept chunk was taken, and the request had ended: deliver its end.
            case complete(End)
            /// Nothing more to deliver: the request was cancelled, or a chunk is kept again.
            case none
        }

        enum KeptRefusalAction: Equatable, Sendable {
            /// A `resumeBody()` came meanwhile: deliver again.
            case deliverAgain
            /// The chunk stays kept, and the task suspended.
            case none
        }

        enum CompletionAction: Equatable, Sendable {
            /// Deliver the end now.
            case complete(End)
            /// The end is kept behind the kept chunks.
            case none
        }

        enum CancelAction: Equatable, Sendable {
            /// The end had come and was kept: deliver it on the delegate queue.
            case complete(End)
            case none
        }

        private(set) var state: State = .flowing(resumeAsked: false)

        /// The cancellation a request ends with when a cancel dropped kept chunks although the
        /// request had completed: the receiver did not get its whole body.
        static let cancellation = End(failure: TransportFailure(code: .cancelled, reason: "cancelled"))

        // MARK: - The delegate queue

        /// A body chunk arrived from URLSession; `chunk` copies it, called only when it is kept.
        mutating func chunkArrives(_ chunk: () -> Data) -> ArrivalAction {
            switch state {
            case .flowing:
                state = .flowing(resumeAsked: false)
                return .deliver
            case .cancelled:
                return .deliver
            case .held(var backlog):
                backlog.chunks.append(chunk())
                state = .held(backlog)
                return .none
            case .redelivering(var backlog, let resumeAsked):
                backlog.chunks.append(chunk())
                state = .redelivering(backlog, resumeAsked: resumeAsked)
                return .none
            case .dropping:
                return .none
            case .ended:
                preconditionFailure("body flow: a chunk arrived in state \(state)")
            }
        }

        /// The receiver refused a chunk handed straight over (after ``chunkArrives(_:)`` said
        /// `deliver`); `chunk` copies it, called only when it is kept.
        mutating func refused(_ chunk: () -> Data) -> RefusalAction {
            switch state {
            case .flowing(resumeAsked: true):
                state = .flowing(resumeAsked: false)
                return .deliverAgain
            case .flowing(resumeAsked: false):
                state = .held(Backlog(chunks: [chunk()]))
                return .suspendTask
            case .cancelled:
                state = .dropping
                return .none
            case .held, .redelivering, .dropping, .ended:
                preconditionFailure("body flow: a chunk handed straight over was refused in state \(state)")
            }
        }

        /// The redelivery scheduled by ``resumeBody()`` asks what to do next.
        mutating func nextKept() -> RedeliveryAction {
            switch state {
            case .redelivering(let backlog, _):
                if let first = backlog.chunks.first {
                    state = .redelivering(backlog, resumeAsked: false)
                    return .deliver(first)
                }
                if let end = backlog.end {
                    state = .ended
                    return .complete(end)
                }
                state = .flowing(resumeAsked: false)
                return .resumeTask
            case .dropping, .ended:
                return .none
            case .flowing, .held, .cancelled:
                preconditionFailure("body flow: a redelivery ran in state \(state)")
            }
        }

        /// The receiver took the kept chunk ``nextKept()`` handed over.
        mutating func keptChunkTaken() {
            switch state {
            case .redelivering(var backlog, let resumeAsked):
                backlog.chunks.removeFirst()
                state = .redelivering(backlog, resumeAsked: resumeAsked)
            case .dropping, .ended:
                break
            case .flowing, .held, .cancelled:
                preconditionFailure("body flow: a kept chunk was taken in state \(state)")
            }
        }

        /// The receiver refused the kept chunk ``nextKept()`` handed over.
        mutating func keptChunkRefused() -> KeptRefusalAction {
            switch state {
            case .redelivering(let backlog, resumeAsked: true):
                state = .redelivering(backlog, resumeAsked: false)
                return .deliverAgain
            case .redelivering(let backlog, resumeAsked: false):
                state = .held(backlog)
                return .none
            case .dropping, .ended:
                return .none
            case .flowing, .held, .cancelled:
                preconditionFailure("body flow: a kept chunk was refused in state \(state)")
            }
        }

        /// URLSession completed the task.
        mutating func complete(_ end: End) -> CompletionAction {
            switch state {
            case .flowing, .cancelled, .dropping:
                state = .ended
                return .complete(end)
            case .held(var backlog):
                backlog.end = end
                state = .held(backlog)
                return .none
            case .redelivering(var backlog, let resumeAsked):
                backlog.end = end
                state = .redelivering(backlog, resumeAsked: resumeAsked)
                return .none
            case .ended:
                preconditionFailure("body flow: the task completed in state \(state)")
            }
        }

        // MARK: - Any thread

        /// The receiver asked for the bytes it refused again (possibly before its refusal was
        /// reported, possibly after the end).
        mutating func resumeBody() -> ResumeAction {
            switch state {
            case .flowing:
                state = .flowing(resumeAsked: true)
                return .none
            case .held(let backlog):
                state = .redelivering(backlog, resumeAsked: false)
                return .redeliver
            case .redelivering(let backlog, _):
                state = .redelivering(backlog, resumeAsked: true)
                return .none
            case .cancelled, .dropping, .ended:
                return .none
            }
        }

        /// The owner cancelled the request. Kept chunks are dropped, and every chunk after them; a
        /// kept end is delivered, as a cancellation if chunks were dropped before it.
        mutating func cancel() -> CancelAction {
            switch state {
            case .flowing:
                state = .cancelled
                return .none
            case .held(let backlog), .redelivering(let backlog, _):
                guard let end = backlog.end else {
                    state = .dropping
                    return .none
                }
                state = .ended
                return .complete(backlog.chunks.isEmpty ? end : Self.cancellation)
            case .cancelled, .dropping, .ended:
                return .none
            }
        }
    }
}
