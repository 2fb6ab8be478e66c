import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The one delegate of the transport's URLSession: routes each callback by task identifier to
    /// the request that owns the task, and does no work of its own.
    ///
    /// Per-task delegates and the async URLSession methods do not deliver completion on Linux, so
    /// every task goes through this delegate.
    final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        private let tasks = Locked<[Int: SessionTask]>([:])
        /// Why a challenge was refused, by task identifier: the task ends with it.
        private let refusals = Locked<[Int: TransportFailure]>([:])
        #if canImport(Darwin)
            private let trust: AppleTrust
        #else
            /// Where a challenge is answered: never on the delegate queue (see
            /// ``urlSession(_:task:didReceive:completionHandler:)``).
            private let controlQueue: DispatchQueue
        #endif

        /// - Parameter controlQueue: the session's control queue.
        init(trust: TrustSettings, controlQueue: DispatchQueue) {
            #if canImport(Darwin)
                self.trust = AppleTrust(settings: trust, showsClientIdentity: true)
            #else
                self.controlQueue = controlQueue
            #endif
        }

        /// Routes `taskIdentifier`'s callbacks to `task`, until the task completes.
        func register(_ task: SessionTask, for taskIdentifier: Int) {
            tasks.withLock { $0[taskIdentifier] = task }
        }

        private func task(for task: URLSessionTask) -> SessionTask? {
            let identifier = task.taskIdentifier
            return tasks.withLock { $0[identifier] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            if let task = task(for: dataTask) {
                if let response = response as? HTTPURLResponse {
                    task.receiver.didReceive(ServerResponse(response))
                } else {
                    // Every URL sent is HTTP(S); the receiver judges a head without a status.
                    task.receiver.didReceive(ServerResponse(url: response.url, statusCode: 0, headers: [:]))
                }
            }
            // Linux ignores `.cancel`; a receiver that rejects the response cancels its task.
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let task = task(for: dataTask) else { return }
            data.withUnsafeBytes { task.deliver($0) }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard let owner = self.task(for: task) else { return completionHandler(nil) }
            owner.willRedirect(response, to: request, completion: completionHandler)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            // TLS is the trust rules' business; credentials are the receiver's: a 401 or 407
            // reaches it as a response head.
            #if canImport(Darwin)
                let identifier = task.taskIdentifier
                trust.answer(
                    challenge, refused: { [refusals] failure in refusals.withLock { $0[identifier] = failure } },
                    completionHandler: completionHandler)
            #else
                // Linux waits forever on the default handling of a challenge without a stored
                // credential; the receiver has the 401 already. The answer cancels the task, and
                // Linux's cancel waits for Foundation's work queue: made here, it could wait for
                // a work queue that waits for room on this very queue (``BoundedDelegateQueue``),
                // and every URLSession of the process would stop. It is made on the control queue.
                controlQueue.async {
                    completionHandler(.cancelAuthenticationChallenge, nil)
                }
            #endif
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let identifier = task.taskIdentifier
            let owner = tasks.withLock { $0.removeValue(forKey: identifier) }
            let refusal = refusals.withLock { $0.removeValue(forKey: identifier) }
            if error == nil, let response = task.response as? HTTPURLResponse,
                (300..<400).contains(response.statusCode),
                let location = response.value(forHTTPHeaderField: "Location"),
                URL(string: location, relativeTo: response.url) == nil
            {
                // A redirect to a Location that is not a URL: swift-corelibs-foundation neither
                // follows it nor hands it over, and ends the task without an error. The receiver
                // refuses it with the Location in its words (a receiver that had it already
                // decided then, and takes no second head).
                owner?.receiver.didReceive(ServerResponse(response))
            }
            owner?.didComplete(with: refusal ?? error)
        }
    }
}
