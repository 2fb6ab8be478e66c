import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession transport: one URLSession with its single delegate, its delegate queue, and
/// the one serial queue from which every URLSession control call is made.
///
/// A request whose receiver cannot take body bytes is held back as ``HoldBack/platformDefault``
/// says: on Apple platforms its task is suspended and only that request waits; on Linux, where
/// `suspend()` restarts a transfer, the delegate queue waits, and it is bounded
/// (``BoundedDelegateQueue``), so URLSession stops reading.
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

    /// On Apple platforms, trust rules (checked in the session's challenges; client identities
    /// in PKCS#12 or from the keychain) and a plain proxy (the session's
    /// `connectionProxyDictionary`); nothing on Linux, where swift-corelibs-foundation gives
    /// neither a trust challenge nor a proxy or CA setting (it ignores the proxy dictionary).
    var connectionSettings: Set<ConnectionSetting> {
        #if canImport(FoundationNetworking)
            []
        #else
            [
                .trustAuthorities, .publicKeyPins, .acceptingAnyCertificate, .pkcs12ClientIdentity,
                .clientIdentityData, .keychainClientIdentity, .providedClientIdentity, .proxy,
            ]
        #endif
    }
    private let delegate: Delegate
    private let session: URLSession
    private let delegateQueue: SendableOperationQueue
    private let controlQueue: DispatchQueue
    private let holdBack: HoldBack

    /// - Parameter pendingCallbackLimit: how many callbacks (about 16 KiB of body each) may wait
    ///   for the receivers before URLSession is held back (Linux's bounded delegate queue).
    /// - Parameter trust: the rules server-trust and client-certificate challenges are answered
    ///   by (Apple platforms).
    init(
        identifier: String, configuration: URLSessionConfiguration, pendingCallbackLimit: Int,
        trust: TrustSettings = TrustSettings()
    ) {
        let controlQueue = URLSessionQueues.makeControlQueue(label: "Downstream.\(identifier).control")
        self.controlQueue = controlQueue
        let delegate = Delegate(trust: trust, controlQueue: controlQueue)
        self.delegate = delegate
        let delegateQueue = URLSessionQueues.makeDelegateQueue(
            limit: pendingCallbackLimit, name: "Downstream.\(identifier).delegate")
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
        self.delegateQueue = SendableOperationQueue(queue: delegateQueue)
        holdBack = .platformDefault
    }

    deinit {
        cancelEverything()
    }

    func invalidate() async {
        cancelEverything()
    }

    /// Cancels the session's tasks and lets the session go, from the control queue.
    private func cancelEverything() {
        let session = self.session
        controlQueue.async {
            session.invalidateAndCancel()
        }
    }

    func start(_ request: URLRequest, receiver: any TransportReceiver) -> any TransportTask {
        let task = SessionTask(
            receiver: receiver, controlQueue: controlQueue, delegateQueue: delegateQueue, holdBack: holdBack,
            requestTimeout: .seconds(session.configuration.timeoutIntervalForRequest))
        controlQueue.async { [session, delegate] in
            let dataTask = session.dataTask(with: request)
            delegate.register(task, for: dataTask.taskIdentifier)
            task.attach(dataTask)
        }
        return task
    }
}

extension URLSessionTransport {
    /// One request: its URLSession task once the control queue made it, the redirect answer
    /// URLSession waits for, and how its body reaches the receiver, which ``HoldBack`` decides.
    final class SessionTask: TransportTask {
        private struct State {
            var task: (any ControlledTask)?
            var isCancelled = false
            /// Set once the task is cancelled or completed: a redirect is then never answered.
            /// Linux's URLSession stops the process when a redirect's answer reaches a task that
            /// was cancelled or completed meanwhile (HTTPURLProtocol
            /// `didCompleteRedirectCallback`), and a cancelled task does not wait for the answer.
            var isEnding = false
            /// The answer URLSession waits for while a redirect is being decided; taken (so
            /// called at most once) by the receiver's answer, or with nil just before a cancel.
            var pendingRedirect: (@Sendable (URLRequest?) -> Void)?
            /// The body's way to the receiver when the task is suspended
            /// (``HoldBack/suspendingTask``); not used otherwise.
            var body = BodyFlow()
        }

        let receiver: any TransportReceiver
        private let controlQueue: DispatchQueue
        /// The session's serial delegate queue, on which kept chunks are handed over again
        /// (``HoldBack/suspendingTask``), in order with URLSession's own callbacks.
        private let delegateQueue: SendableOperationQueue
        private let holdBack: HoldBack
        /// The session's request timeout, for the words of a failure it caused.
        private let requestTimeout: Duration
        private let state = Locked(State())
        /// Signalled to deliver bytes the receiver could not take yet again, or by a cancel
        /// (``HoldBack/blockingDelegateQueue``).
        private let resumption = DispatchSemaphore(value: 0)
        /// Whether a cancel dropped bytes that waited (``HoldBack/blockingDelegateQueue``); only
        /// the delegate queue, which delivers one callback at a time, touches it.
        private nonisolated(unsafe) var droppedBytes = false

        /// - Parameter delegateQueue: the session's delegate queue, serial.
        init(
            receiver: any TransportReceiver, controlQueue: DispatchQueue, delegateQueue: SendableOperationQueue,
            holdBack: HoldBack, requestTimeout: Duration = .seconds(60)
        ) {
            self.receiver = receiver
            self.controlQueue = controlQueue
            self.delegateQueue = delegateQueue
            self.holdBack = holdBack
            self.requestTimeout = requestTimeout
        }

        /// On the control queue: the task exists; starts it, and cancels it at once if a cancel
        /// came first.
        func attach(_ task: any ControlledTask) {
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
            let holdBack = self.holdBack
            let (task, pendingRedirect, bodyAction) = state.withLock { state in
                state.isCancelled = true
                state.isEnding = true
                defer { state.pendingRedirect = nil }
                let bodyAction = holdBack == .suspendingTask ? state.body.cancel() : .none
                return (state.task, state.pendingRedirect, bodyAction)
            }
            // The answer reaches URLSession before the cancel does.
            pendingRedirect?(nil)
            switch holdBack {
            case .blockingDelegateQueue:
                resumption.signal()
            case .suspendingTask:
                if case .complete(let end) = bodyAction {
                    // The task had completed while chunks were kept: its end is still delivered.
                    delegateQueue.addOperation { [receiver] in receiver.didComplete(end.failure) }
                }
            }
            guard let task else { return }  // `attach` cancels it.
            controlQueue.async {
                task.cancel()
            }
        }

        func resumeBody() {
            switch holdBack {
            case .blockingDelegateQueue:
                resumption.signal()
            case .suspendingTask:
                guard state.withLock({ $0.body.resumeBody() }) == .redeliver else { return }
                delegateQueue.addOperation { [self] in redeliverKeptChunks() }
            }
        }

        /// Suspending: only this task waits. Blocking: the delegate queue, which every task of the
        /// session shares, waits.
        var waitsAlone: Bool { holdBack == .suspendingTask }

        // MARK: - Delegate queue

        /// Hands body bytes to the receiver, and holds the request back while the receiver cannot
        /// take them, as ``HoldBack`` says.
        ///
        /// A cancel drops the bytes that wait, and every byte after them: the receiver's bytes
        /// stay one piece from the start of the body. (Handing over the chunks queued behind a
        /// dropped one wrote them at its place: files paused and resumed under load came out
        /// shifted from that byte on.)
        func deliver(_ bytes: UnsafeRawBufferPointer) {
            switch holdBack {
            case .blockingDelegateQueue: deliverBlocking(bytes)
            case .suspendingTask: deliverSuspending(bytes)
            }
        }

        /// While the receiver cannot take the bytes, the delegate queue waits here, and
        /// URLSession, whose queue is bounded on Linux, stops reading (``BoundedDelegateQueue``).
        private func deliverBlocking(_ bytes: UnsafeRawBufferPointer) {
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

        /// While the receiver cannot take the bytes, they are kept (with the chunks that arrive
        /// after them), the task is suspended, and the callback returns at once (``BodyFlow``).
        private func deliverSuspending(_ bytes: UnsafeRawBufferPointer) {
            guard state.withLock({ $0.body.chunkArrives { Data(bytes) } }) == .deliver else { return }
            while receiver.didReceive(bytes, of: self) == .later {
                let (action, task) = state.withLock { ($0.body.refused { Data(bytes) }, $0.task) }
                switch action {
                case .deliverAgain:
                    continue
                case .suspendTask:
                    if let task {
                        controlQueue.async { task.suspend() }
                    }
                    return
                case .none:
                    return
                }
            }
        }

        /// Scheduled by ``resumeBody()`` on the delegate queue: hands the kept chunks over again,
        /// in order, then resumes the task, or delivers the end that was kept behind them.
        private func redeliverKeptChunks() {
            while true {
                let (action, task) = state.withLock { ($0.body.nextKept(), $0.task) }
                switch action {
                case .deliver(let chunk):
                    let reception = chunk.withUnsafeBytes { receiver.didReceive($0, of: self) }
                    switch reception {
                    case .taken:
                        state.withLock { $0.body.keptChunkTaken() }
                    case .later:
                        guard state.withLock({ $0.body.keptChunkRefused() }) == .deliverAgain else { return }
                    }
                case .resumeTask:
                    if let task {
                        controlQueue.async { task.resume() }
                    }
                    return
                case .complete(let end):
                    receiver.didComplete(end.failure)
                    return
                case .none:
                    return
                }
            }
        }

        func didComplete(with error: (any Error)?) {
            var failure = error.map(TransportFailure.init)
            if failure?.code == .timedOut {
                // URLSession's words say no more than "timed out": the timeout is its request
                // timeout, the longest wait for a byte.
                failure?.reason = "no byte received for \(requestTimeout.secondsText)"
            }
            let end = BodyFlow.End(failure: failure)
            let holdBack = self.holdBack
            // A redirect still being decided (a timeout ended the task) is never answered.
            let action = state.withLock { state in
                state.isEnding = true
                state.pendingRedirect = nil
                return holdBack == .suspendingTask ? state.body.complete(end) : .complete(end)
            }
            // The end of a body whose chunks are kept comes after them (``redeliverKeptChunks()``).
            guard case .complete(let end) = action else { return }
            receiver.didComplete(end.failure)
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
