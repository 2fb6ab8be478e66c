import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadManager {
    /// Asks the server for the head of `request`'s response without its body (a `HEAD` request),
    /// as curl's `-I` does: over the manager's transport, with its network settings (user agent,
    /// headers, proxy, trust, timeouts), following redirects by its rules (each checked, then
    /// given to the redirect handler, as for a download). Nothing is downloaded or stored, and no
    /// download is made.
    ///
    /// Returns the heads in the order they came: one for each redirect followed, then the last,
    /// whatever its status (a `404` is an answer, not an error). A `401` or `407` goes to the
    /// manager's authentication handler (``AuthenticationSettings/handler``), as a download's
    /// would: with credentials, the request is sent again with them (Digest or Basic, as the
    /// server offers), up to ``AuthenticationSettings/maximumAttempts`` times, and the heads of
    /// every request are returned, the challenges included. Without a handler, or when it does
    /// not answer, the `401` or `407` is the last head. The request adapter is not asked (set the
    /// request's headers yourself).
    ///
    /// ```swift
    /// let heads = try await manager.responseHeads(for: URLRequest(url: url))
    /// let length = heads.last?.value(forHTTPHeaderField: "Content-Length")
    /// ```
    ///
    /// - Parameter request: the request to send; its method is made `HEAD`, its body ignored.
    /// - Throws: ``DownloadError``: ``DownloadError/Kind/invalidRequest`` for a URL that is not
    ///   HTTP or a header that cannot be sent, ``DownloadError/Kind/redirectRefused``, a network
    ///   or certificate failure, or ``DownloadError/Kind/cancelled`` when the task is cancelled.
    public func responseHeads(for request: URLRequest) async throws(DownloadError) -> [ServerResponse] {
        guard let url = request.url else { throw .invalidRequest("the request has no URL") }
        if let problem = DownloadRequest.problem(with: url) { throw .invalidRequest(problem) }
        if let problem = HeaderField.problem(in: request.allHTTPHeaderFields ?? [:]) {
            throw .invalidRequest(problem)
        }
        var head = request
        head.httpMethod = "HEAD"
        head.httpBody = nil
        head.cachePolicy = .reloadIgnoringLocalCacheData
        let authentication = context.settings.authentication
        var heads: [ServerResponse] = []
        var credentials = RequestCredentials.none
        var answered = 0
        while true {
            var sent = head
            credentials.apply(to: &sent)
            heads += try await exchangeHeads(sent, url: url, credentials: credentials)
            guard let last = heads.last, [401, 407].contains(last.statusCode),
                answered < authentication.maximumAttempts,
                let handler = authentication.handler
            else { return heads }
            let challenge = AuthenticationChallenge(
                downloadID: DownloadID(), response: last, previousFailureCount: answered)
            if !credentials.renewsStaleNonce(for: challenge) {
                let decision = await handler(challenge)
                // Not answered (or not in a scheme the server offers): the challenge is the answer.
                guard credentials.take(decision, for: challenge) == nil else { return heads }
            }
            answered += 1
        }
    }

    /// Sends `request` (a `HEAD`) and follows its redirects; the heads it got.
    private func exchangeHeads(
        _ request: URLRequest, url: URL, credentials: RequestCredentials
    ) async throws(DownloadError) -> [ServerResponse] {
        let exchange = HeadExchange(
            url: url, redirects: context.settings.engine.transfer.redirects, transport: context.engines.ranged,
            credentials: credentials)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(request) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            exchange.cancel()
        }
        // Not `result.get()`: its typed throws is newer than the iOS 16 SDK's standard library.
        switch result {
        case .success(let heads): return heads
        case .failure(let error): throw error
        }
    }
}

/// A `HEAD` request and its redirects, for ``DownloadManager/responseHeads(for:)``: the heads it
/// got, or why it ended without its last one.
final class HeadExchange: TransportReceiver {
    private struct State {
        var heads: [ServerResponse] = []
        var redirects = 0
        /// Why the exchange ends without its last head: a refused redirect.
        var failure: DownloadError?
        var finish: (@Sendable (Result<[ServerResponse], DownloadError>) -> Void)?
    }

    private let url: URL
    private let rules: RedirectSettings
    private let transport: any Transport
    /// The answers to challenges the request carries, made again for each redirect's request.
    private let credentials: RequestCredentials
    private let control = RequestControl()
    private let state = Locked(State())

    init(url: URL, redirects: RedirectSettings, transport: any Transport, credentials: RequestCredentials = .none) {
        self.url = url
        self.rules = redirects
        self.transport = transport
        self.credentials = credentials
    }

    /// Sends `request`; `finish` gets the heads once it ended.
    func start(_ request: URLRequest, finish: @escaping @Sendable (Result<[ServerResponse], DownloadError>) -> Void) {
        state.withLock { $0.finish = finish }
        control.start(request, on: transport, receiver: self)
    }

    func cancel() {
        control.cancel()
    }

    func willRedirect(
        _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let previousCount = state.withLock { state in
            state.heads.append(response)
            defer { state.redirects += 1 }
            return state.redirects
        }
        let checked = RedirectPolicy.check(
            proposed, from: response.url, original: url, previousCount: previousCount, settings: rules)
        guard case .success(let request) = checked, let handler = rules.handler else {
            return follow(checked, answer: answer)
        }
        let redirect = Redirect(
            downloadID: DownloadID(), originalURL: url, response: response, request: request,
            previousCount: previousCount)
        Task { [rules, url] in
            let decision = await handler(redirect)
            let decided: Result<URLRequest, DownloadError> =
                switch decision.code {
                case .follow(nil): checked
                case .follow(let changed?):
                    RedirectPolicy.check(
                        changed, from: response.url, original: changed.url ?? url, previousCount: previousCount,
                        settings: rules)
                case .refuse(let reason): .failure(.redirectRefused(reason))
                }
            self.follow(decided, answer: answer)
        }
    }

    /// Answers a redirect with the request to follow (a `HEAD` too, whatever the status: a `303`
    /// asks for a `GET`, which would download the body), or refuses it and ends the exchange.
    private func follow(_ checked: Result<URLRequest, DownloadError>, answer: @Sendable (URLRequest?) -> Void) {
        switch checked {
        case .success(var request):
            request.httpMethod = "HEAD"
            request.httpBody = nil
            // A Digest answer is for one request-target: made again for the new one (credentials
            // the redirect dropped, to another origin, stay dropped).
            credentials.reapply(to: &request)
            answer(request)
        case .failure(let refusal):
            state.withLock { $0.failure = refusal }
            answer(nil)
            control.cancel()
        }
    }

    func didReceive(_ response: ServerResponse) {
        state.withLock { state in
            if state.failure == nil { state.heads.append(response) }
        }
    }

    func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
        // A server that sends a body to a HEAD request: not read, not kept.
        .taken
    }

    func didComplete(_ failure: TransportFailure?) {
        control.end()
        let (finish, result) = state.withLock { state in
            defer { state.finish = nil }
            let result: Result<[ServerResponse], DownloadError> =
                if let refusal = state.failure {
                    .failure(refusal)
                } else if let failure {
                    .failure(failure.isCancellation ? .cancelled : .network(failure))
                } else {
                    .success(state.heads)
                }
            return (state.finish, result)
        }
        finish?(result)
    }
}
