import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What receives one URLSession task's callbacks. Called on the session's serial delegate queue,
/// in the order URLSession delivered them.
protocol SessionTaskHandler: AnyObject, Sendable {
    func didReceive(_ response: URLResponse)
    func didReceive(_ data: Data)
    func didComplete(with error: (any Error)?)
    func willRedirect(
        _ response: HTTPURLResponse, to proposed: URLRequest, completion: @escaping @Sendable (URLRequest?) -> Void)
}

/// The one delegate of a Downstream URLSession: routes each callback by task identifier to the
/// handler that owns the task, and does no work of its own.
///
/// Per-task delegates and the async URLSession methods do not deliver completion on Linux, so
/// every task goes through this delegate.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let handlers = Locked<[Int: any SessionTaskHandler]>([:])

    /// Routes `taskIdentifier`'s callbacks to `handler`, until the task completes.
    func register(_ handler: any SessionTaskHandler, for taskIdentifier: Int) {
        handlers.withLock { $0[taskIdentifier] = handler }
    }

    private func handler(for task: URLSessionTask) -> (any SessionTaskHandler)? {
        let identifier = task.taskIdentifier
        return handlers.withLock { $0[identifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        handler(for: dataTask)?.didReceive(response)
        // Linux ignores `.cancel`; a handler that rejects the response cancels its task itself.
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handler(for: dataTask)?.didReceive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let handler = handler(for: task) else { return completionHandler(nil) }
        handler.willRedirect(response, to: request, completion: completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Credentials are the download's business: a 401 or 407 reaches the transfer as a
        // response, which hands it to the authentication handler.
        #if canImport(Darwin)
            completionHandler(.performDefaultHandling, nil)
        #else
            // Linux waits forever on the default handling of a challenge without a stored
            // credential; the transfer has decided about the 401 already.
            completionHandler(.cancelAuthenticationChallenge, nil)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let identifier = task.taskIdentifier
        let handler = handlers.withLock { $0.removeValue(forKey: identifier) }
        handler?.didComplete(with: error)
    }
}
