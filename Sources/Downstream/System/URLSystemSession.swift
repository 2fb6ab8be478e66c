import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLSession of download tasks (a background session on Apple platforms), with its delegate
/// and its own control queue, feeding ``SystemTaskRouter``.
final class URLSystemSession: SystemSession {
    private let session: URLSession
    private let controlQueue: DispatchQueue

    /// - Parameter trust: the rules server-trust challenges are answered by (Apple platforms).
    init(
        configuration: URLSessionConfiguration, router: SystemTaskRouter, pendingCallbackLimit: Int, name: String,
        trust: TrustSettings = TrustSettings()
    ) {
        let delegateQueue = URLSessionQueues.makeDelegateQueue(
            limit: pendingCallbackLimit, name: "Downstream.\(name).system")
        session = URLSession(
            configuration: configuration, delegate: SystemSessionDelegate(router: router, trust: trust),
            delegateQueue: delegateQueue)
        controlQueue = URLSessionQueues.makeControlQueue(label: "Downstream.\(name).system-control")
    }

    /// On Apple platforms, a server's trust is checked in the session's challenge, and its
    /// configuration has the proxy; a background session is never asked for a client certificate.
    /// Nothing on Linux, where Foundation has no such hooks.
    static var connectionSettings: Set<ConnectionSetting> {
        #if canImport(Darwin)
            [.trustAuthorities, .publicKeyPins, .acceptingAnyCertificate, .proxy]
        #else
            []
        #endif
    }

    /// Linux Foundation cannot resume from resume data: `downloadTask(withResumeData:)` makes a
    /// task that, once resumed, stops the process (an assertion in `URLSession.behaviour(for:)`,
    /// measured with Swift 6.3.1). It never produces resume data either.
    var supportsResumeData: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }

    deinit {
        let session = self.session
        controlQueue.async {
            // Tasks of a background session go on without the app: do not cancel them.
            session.finishTasksAndInvalidate()
        }
    }

    func start(
        _ request: URLRequest, resumeData: Data?, downloadID: DownloadID, options: SystemTaskOptions,
        attach: @escaping @Sendable (any SystemTask) -> Void
    ) {
        var request = request
        options.networkAccess.apply(to: &request)
        controlQueue.async { [session, request] in
            let task =
                resumeData.map { session.downloadTask(withResumeData: $0) } ?? session.downloadTask(with: request)
            task.taskDescription = downloadID.rawValue.uuidString
            #if canImport(Darwin)
                // Background sessions only (Linux has none: there it is deprecated and ignored).
                if let date = options.earliestBeginDate {
                    task.earliestBeginDate = date
                }
            #endif
            if let count = options.expectedByteCount {
                task.countOfBytesClientExpectsToReceive = count
            }
            attach(task)
            task.resume()
        }
    }

    func cancel(_ task: any SystemTask, producingResumeData: Bool, resumeData: @escaping @Sendable (Data?) -> Void) {
        guard let task = task as? URLSessionDownloadTask else { return }
        controlQueue.async {
            if producingResumeData {
                task.cancel(byProducingResumeData: { resumeData($0) })
            } else {
                task.cancel()
                resumeData(nil)
            }
        }
    }

    func allTasks(_ body: @escaping @Sendable ([any SystemTask]) -> Void) {
        controlQueue.async { [session] in
            session.getAllTasks { tasks in
                body(tasks.compactMap { $0 as? URLSessionDownloadTask })
            }
        }
    }
}

/// The delegate of a ``URLSystemSession``: hands every event to the router, on the session's
/// serial delegate queue.
final class SystemSessionDelegate: NSObject, URLSessionDownloadDelegate, Sendable {
    private let router: SystemTaskRouter
    /// Why a challenge was refused, by task identifier: the task ends with it.
    private let refusals = Locked<[Int: TransportFailure]>([:])
    #if canImport(Darwin)
        /// A background session is never asked for a client certificate (Apple).
        private let trust: AppleTrust
    #endif

    init(router: SystemTaskRouter, trust: TrustSettings) {
        self.router = router
        #if canImport(Darwin)
            self.trust = AppleTrust(settings: trust, showsClientIdentity: false)
        #endif
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        router.wrote(downloadTask, total: totalBytesWritten, expected: totalBytesExpectedToWrite)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {
        router.resumed(downloadTask, at: fileOffset, expected: expectedTotalBytes)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The system deletes the file when this returns: the router moves it before.
        router.finishedDownloading(downloadTask, to: location)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let identifier = task.taskIdentifier
        let refusal = refusals.withLock { $0.removeValue(forKey: identifier) }
        guard let task = task as? URLSessionDownloadTask else { return }
        router.completed(task, error: refusal ?? error)
    }

    #if canImport(Darwin)
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let identifier = task.taskIdentifier
            trust.answer(
                challenge, refused: { [refusals] failure in refusals.withLock { $0[identifier] = failure } },
                completionHandler: completionHandler)
        }

        func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            router.sessionFinishedEvents()
        }
    #endif
}
