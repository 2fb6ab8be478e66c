import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RangedTransfer {
    /// Checks a redirect (and asks the redirect handler, if any) before it is followed; `answer`
    /// gets the request to follow, or nil to take the redirect as the response.
    func willRedirect(
        _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard sink.decidedEnd == nil else { return answer(nil) }
        let previousCount = sink.redirects
        sink.redirects += 1
        let rules = setup.settings.redirects
        let checked = RedirectPolicy.check(
            proposed, from: response.url, original: setup.url, previousCount: previousCount, settings: rules)
        let request: URLRequest
        switch checked {
        case .failure(let refusal):
            // Answered before the cancel that `reject` asks for.
            answer(nil)
            return reject(.failed(refusal))
        case .success(var checkedRequest):
            // A Digest answer is for one request-target: the redirect's gets its own.
            setup.credentials.reapply(to: &checkedRequest)
            request = checkedRequest
        }
        if let target = request.url {
            setup.recordFile.noteHistory(
                DownloadHistoryEntry(response: response, kind: .redirect, redirectedTo: target))
        }
        guard let handler = rules.handler else { return answer(request) }
        let redirect = Redirect(
            downloadID: setup.downloadID, originalURL: setup.url, response: response, request: request,
            previousCount: previousCount)
        Task { [setup] in
            let decision = await handler(redirect)
            switch decision.code {
            case .follow(nil):
                answer(request)
            case .follow(var changed?):
                // The range and its guards stay the engine's.
                for name in ["Range", "If-Range", "Accept-Encoding"] {
                    changed.setValue(request.value(forHTTPHeaderField: name), forHTTPHeaderField: name)
                }
                if case .failure(let refusal) = RedirectPolicy.check(
                    changed, from: response.url, original: changed.url ?? setup.url,
                    previousCount: previousCount, settings: rules)
                {
                    self.refusedRedirect = refusal
                    return answer(nil)
                }
                answer(changed)
            case .refuse(let reason):
                self.refusedRedirect = .redirectRefused(reason)
                answer(nil)
            }
        }
    }
}
