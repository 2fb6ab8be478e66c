import Foundation

extension Download {
    /// Gives the download a new URL for the same file, keeping its bytes: a signed link that
    /// expired, a server that moved.
    ///
    /// The URL replaces the one in use (``url``) and is kept in the download's record, so that a
    /// relaunch uses it too; ``request`` keeps the URL the download was asked for, so asking the
    /// manager again for that URL and destination still finds this download. A running request
    /// stops, and the next one continues from the bytes on disk; a paused, failed or waiting
    /// download uses the URL when it runs again. Because validators of one URL mean nothing for
    /// another, the first request to the new URL compares the bytes before the resume point with
    /// those on disk (see ``DownloadManager/Configuration/Resumption``). Does nothing for a
    /// download that completed or was cancelled.
    ///
    /// - Throws: ``DownloadError/Kind/invalidRequest`` for a URL that is not HTTP or HTTPS.
    public func setURL(_ url: URL) throws(DownloadError) {
        if let problem = DownloadRequest.problem(with: url) { throw .invalidRequest(problem) }
        guard url != sources.current else { return }
        let action = machine.urlChanged()
        switch action {
        case .refuse:
            break
        case .none, .stopAttempt:
            sources.replaceCurrent(with: url)
            sourcesChanged()
        }
        handle(action)
    }

    /// The URL in use changed: keeps it in the record, and tells.
    func sourcesChanged() {
        let url = sources.current
        let sources = sources
        try? recordFile?.update { $0.sources = sources }
        withSnapshot { $0.url = url }
        publishEvent(.switchedURL(to: url))
    }
}
