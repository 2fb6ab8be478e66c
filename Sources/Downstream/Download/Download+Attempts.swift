import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Download {
    /// Records what should become of the download, so that a relaunch knows. A record that cannot
    /// be written does not stop the download; it only will not survive the process as it is now.
    func saveIntent(_ intent: StoredDownload.Intent) {
        try? recordFile?.update { $0.intent = intent }
    }

    func startAttempt(_ attempt: Int, _ kind: StateMachine.AttemptKind) {
        switch kind {
        case .run:
            saveIntent(.active)
            publishEvent(.running)
        case .restart:
            publishEvent(.restarted)
        case .continuation:
            break
        }
        var copy: ExistingCopy?
        if kind == .run, let check = destinationCheck() {
            guard let conditional = act(on: check, attempt: attempt) else { return }
            copy = conditional
        }
        sendRequest(attempt, kind, conditionalOn: copy)
    }

    /// Sends the attempt's request, through the system engine or the ranged one; with `copy`, a
    /// request for the file only if it changed since that copy (ranged engine only).
    func sendRequest(_ attempt: Int, _ kind: StateMachine.AttemptKind, conditionalOn copy: ExistingCopy?) {
        if let system = engines.system, usesSystemEngine(for: kind) {
            startSystemAttempt(attempt, kind, on: system)
            return
        }
        if let recordFile, requestError == nil,
            let map = segmentMap(for: recordFile.record.resume, url: sources.current, kind: kind)
        {
            borrowConnections(for: attempt, kind, map)
            return
        }
        let setup: RangedTransfer.Setup
        let urlRequest: URLRequest
        do {
            (setup, urlRequest) = try prepareAttempt(attempt, kind, conditionalOn: copy)
        } catch {
            handle(machine.attemptEnded(attempt, .failed(error)))
            return
        }
        let observer = context.observer
        observer.download(self, willSend: urlRequest)
        let observeResponse: @Sendable (ServerResponse) -> Void = { [weak self] response in
            guard let self else { return }
            observer.download(self, didReceive: response)
        }
        let transfer = RangedTransfer(
            setup, progress: progressReporter,
            publish: { [weak self] in self?.publishEvent($0) }, observeResponse: observeResponse,
            onEnd: { [weak self] outcome, response in
                // Weak in the task too: a download let go of (its manager with it) is not kept
                // alive by the end of its last request.
                Task { [weak self] in await self?.attemptEnded(attempt, outcome, response: response) }
            })
        self.transfer = transfer
        transfer.start(urlRequest, on: engines.ranged)
    }

    /// - Parameter response: the last response head of the request, if it had one.
    func attemptEnded(_ attempt: Int, _ end: TransferEnd, response: ServerResponse? = nil) {
        if transfer?.attemptNumber == attempt {
            transfer = nil
        }
        if case .destinationIsCurrent = end {
            // The file was there already: no record, no partial file is left behind.
            recordFile?.remove()
            POSIXFile.remove(atPath: location.path)
        }
        guard machine.state == .running(attempt: attempt), case .failed(let error) = end else {
            // The machine decides what comes next (a failure of a stopping request included).
            handle(machine.attemptEnded(attempt, end))
            return
        }
        recover(attempt, from: error, response: response)
    }

    /// Asks the authentication handler about `challenge`, which ended request `attempt`, off the
    /// actor.
    func answer(_ challenge: AuthenticationChallenge, of attempt: Int) {
        guard let handler = settings.authentication.handler else {
            // The machine answers challenges only for a download with a handler.
            handle(machine.challengeAnswered(attempt, challenge, authorized: false))
            return
        }
        Task {
            let decision = await handler(challenge)
            self.challengeAnswered(attempt, challenge, decision)
        }
    }

    /// Keeps the credentials of `decision` for every later request, and tells the machine, which
    /// sends the request again with them, or fails with the challenge's status without them.
    private func challengeAnswered(
        _ attempt: Int, _ challenge: AuthenticationChallenge, _ decision: AuthenticationChallenge.Decision
    ) {
        if let authorization = decision.authorization {
            credentials[challenge.isProxy ? "Proxy-Authorization" : "Authorization"] = authorization
        }
        handle(machine.challengeAnswered(attempt, challenge, authorized: decision.authorization != nil))
    }

    /// Makes sure the destination's and the partial file's directories are there.
    func preparePlaces() throws(DownloadError) {
        try FilePlacement.prepare(request.destination)
        let partialDirectory = location.path.parentPath
        if partialDirectory != request.destination.directoryPath {
            try FilePlacement.createDirectory(atPath: partialDirectory)
        }
    }

    /// The request's request to `url`, with what every request of the engine carries: no cache, the
    /// credentials the authentication handler gave, and the body asked for as it is stored.
    func baseRequest(to url: URL) -> URLRequest {
        var urlRequest = request.urlRequest
        urlRequest.url = url
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        request.networkAccess.apply(to: &urlRequest)
        for (name, value) in credentials {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if urlRequest.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            // Byte offsets must be the file's own: ask for the body as it is stored.
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        return urlRequest
    }

    /// Decides where the request starts (the partial file's real length, if its record says
    /// it can be continued), which bytes before that it asks for again to compare them (when no
    /// validator of the same URL can guard the range), and where it ends; and builds it.
    private func prepareAttempt(
        _ attempt: Int, _ kind: StateMachine.AttemptKind, conditionalOn copy: ExistingCopy?
    ) throws(DownloadError) -> (RangedTransfer.Setup, URLRequest) {
        if let requestError { throw requestError }
        guard let recordFile else { throw .invalidRequest("the request has no URL") }
        let url = sources.current
        try preparePlaces()

        var record = recordFile.record.resume
        var offset: Int64 = 0
        if kind != .restart, record.isResumable {
            if record.segments != nil {
                offset = try abandonSegments(of: record)
                record.segments = nil
            } else {
                offset = POSIXFile.length(atPath: location.path) ?? 0
            }
            if let expected = record.expectedLength, offset > expected { offset = 0 }
        }
        if offset == 0 {
            // Whatever the partial file holds is not to be continued until a response replaces it.
            record = .startingOver(url: url)
        }
        let digest = try continuedDigest(of: &record, upTo: offset)
        record.digest = digest
        // A large file comes in bounded ranges, one request after another (see
        // `maximumBytesPerRequest`); the last range is open-ended.
        var end: Int64?
        if let length = settings.maximumBytesPerRequest {
            let candidate = offset + length
            if record.expectedLength.map({ candidate < $0 }) ?? true {
                end = candidate
            }
        }
        let (connections, minimumSize) = segmentation
        if connections > 1, offset == 0, !recoveryMemory.rangesRefused {
            // The first segment only: its answer tells whether the rest can be split.
            end = min(end ?? minimumSize, minimumSize)
        }
        // A validator says what to ask for (`If-Range`, only on the server that gave it); the bytes
        // say what to believe: every continuation asks for the bytes before the resume point again
        // and compares them with the disk's before anything is written. Validators come from
        // modification times, which a replaced file can keep.
        let validator = record.url == url ? record.validator : Validator()
        let overlap = Int64(settings.overlapLength)
        let plan = AttemptPlan(
            offset: offset, overlap: overlap, end: end, validator: validator, expectedLength: record.expectedLength,
            onServerFileChange: request.onServerFileChange, existingCopy: offset == 0 ? copy?.path : nil,
            serverDigest: record.serverDigest)

        var urlRequest = baseRequest(to: url)
        urlRequest.setValue(plan.rangeHeader, forHTTPHeaderField: "Range")
        urlRequest.setValue(offset > 0 ? plan.validator.ifRangeValue : nil, forHTTPHeaderField: "If-Range")
        if plan.existingCopy != nil, let copy {
            for (name, value) in copy.conditionalHeaders {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
        }
        let setup = RangedTransfer.Setup(
            attempt: attempt, url: url, plan: plan, announcesResume: kind == .run, partialPath: location.path,
            namesFile: request.destination.fileURL == nil, record: record, recordFile: recordFile,
            settings: settings.transfer, downloadID: id,
            answersChallenges: machine.answersChallenges, previousChallenges: machine.answeredChallenges,
            expectedAlgorithm: request.expectedDigest?.algorithm)
        return (setup, urlRequest)
    }
}
