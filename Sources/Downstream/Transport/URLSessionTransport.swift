import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession transport: one URLSession with its single delegate, its bounded delegate queue,
/// and the one serial queue from which every URLSession control call is made.
///
/// On Linux, creating, resuming and cancelling tasks can block for seconds while a transfer is
/// held back by a slow disk, and deadlocks when made from the delegate queue. So nothing makes
/// these calls inline: they go to the control queue, in the order they were asked for.
final class URLSessionTransport: Transport {
    var name: String { "URLSession" }

    /// Linux URLSession keeps about 340 bytes of each 16 KiB chunk until the request ends
    /// (measured on Swift 6.3.1): gigabytes in one request would grow the process by tens of
    /// megabytes. Nothing of the kind is known of Apple's.
    var needsBoundedRequests: Bool {
        #if canImport(FoundationNetworking)
            true
        #else
            false
        #endif
    }
    private let delegate = Delegate()
    private let session: URLSession
    private let controlQueue: DispatchQueue

    /// - Parameter pendingCallbackLimit: how many callbacks (about 16 KiB of body each) may wait
    ///   for the receivers before URLSession is held back.
    init(identifier: String, configuration: URLSessionConfiguration, pendingCallbackLimit: Int) {
        let delegateQueue = URLSessionQueues.makeDelegateQueue(
            limit: pendingCallbackLimit, name: "Downstream.\(identifier).delegate")
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
        controlQueue = URLSessionQueues.makeControlQueue(label: "Downstream.\(identifier).control")
    }

    deinit {
        invalidate()
    }

    func invalidate() {
        let session = self.session
        controlQueue.async {
            session.invalidateAndCancel()
        }
    }

    func start(_ request: URLRequest, receiver: any TransportReceiver) -> any TransportTask {
        let task = SessionTask(receiver: receiver, controlQueue: controlQueue)
        controlQueue.async { [session, delegate] in
            let dataTask = session.dataTask(with: request)
            delegate.register(task, for: dataTask.taskIdentifier)
            task.attach(dataTask)
        }
        return task
    }
}

extension URLSessionTransport {
    /// One request: its URLSession task once the control queue made it, and the redirect answer
    /// URLSession waits for.
    final class SessionTask: TransportTask {
        private struct State {
            var task: URLSessionTask?
            var isCancelled = false
            /// Set once the task is cancelled or completed: a redirect is then never answered.
            /// Linux's URLSession stops the process when a redirect's answer reaches a task that
            /// was cancelled or completed meanwhile (HTTPURLProtocol
            /// `didCompleteRedirectCallback`), and a cancelled task does not wait for the answer.
            var isEnding = false
            /// The answer URLSession waits for while a redirect is being decided; taken (so
            /// called at most once) by the receiver's answer, or with nil just before a cancel.
            var pendingRedirect: (@Sendable (URLRequest?) -> Void)?
        }

        let receiver: any TransportReceiver
        private let controlQueue: DispatchQueue
        private let state = Locked(State())
        /// Signalled to deliver bytes the receiver could not take yet again (or by a cancel).
        private let resumption = DispatchSemaphore(value: 0)
        /// Whether a cancel dropped bytes that waited; only the delegate queue, which delivers
        /// one callback at a time, touches it.
        private nonisolated(unsafe) var droppedBytes = false

        init(receiver: any TransportReceiver, controlQueue: DispatchQueue) {
            self.receiver = receiver
            self.controlQueue = controlQueue
        }

        /// On the control queue: the task exists; starts it, and cancels it at once if a cancel
        /// came first.
        func attach(_ task: URLSessionTask) {
            let isCancelled = state.withLock { state in
                state.task = task
                return state.isCancelled
            }
            task.resume()
            if isCancelled {
                task.cancel()
            }
        }

        func cancel() {
            let (task, pendingRedirect) = state.withLock { state in
                state.isCancelled = true
                state.isEnding = true
                defer { state.pendingRedirect = nil }
                return (state.task, state.pendingRedirect)
            }
            // The answer reaches URLSession before the cancel does.
            pendingRedirect?(nil)
            resumption.signal()
            guard let task else { return }  // `attach` cancels it.
            controlQueue.async {
                task.cancel()
            }
        }

        func resumeBody() {
            resumption.signal()
        }

        /// The delegate queue, which every task of the session shares, waits.
        var waitsAlone: Bool { false }

        // MARK: - Delegate queue

        /// Hands body bytes to the receiver. URLSession cannot be paused: while the receiver
        /// cannot take them, the delegate queue waits here, and URLSession, whose queue is
        /// bounded, stops reading (``BoundedDelegateQueue``).
        ///
        /// A cancel drops the bytes that wait, and every byte after them: the receiver's bytes
        /// stay one piece from the start of the body. (Handing over the chunks queued behind a
        /// dropped one wrote them at its place: files paused and resumed under load came out
        /// shifted from that byte on.)
        func deliver(_ bytes: UnsafeRawBufferPointer) {
            guard !droppedBytes else { return }
            while receiver.didReceive(bytes, of: self) == .later {
                resumption.wait()
                if state.withLock({ $0.isCancelled }) {
                    droppedBytes = true
                    return
                }
            }
        }

        func willRedirect(
            _ response: HTTPURLResponse, to proposed: URLRequest,
            completion: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // A task asked to stop is not answered: the answer could reach it after the cancel.
            let isAnswerable = state.withLock { state in
                guard !state.isEnding else { return false }
                state.pendingRedirect = completion
                return true
            }
            guard isAnswerable else { return }
            receiver.willRedirect(ServerResponse(response), to: proposed) { [weak self] request in
                self?.answerRedirect(request)
            }
        }

        func didComplete(with error: (any Error)?) {
            // A redirect still being decided (a timeout ended the task) is never answered.
            state.withLock { state in
                state.isEnding = true
                state.pendingRedirect = nil
            }
            receiver.didComplete(error.map(TransportFailure.init))
        }

        /// Gives URLSession the receiver's answer to the redirect being decided, unless the task
        /// was cancelled meanwhile (which answered it already).
        private func answerRedirect(_ request: URLRequest?) {
            let pending = state.withLock { state in
                defer { state.pendingRedirect = nil }
                return state.pendingRedirect
            }
            pending?(request)
        }
    }
}
