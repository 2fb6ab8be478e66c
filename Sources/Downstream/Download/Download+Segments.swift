import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Download {
    /// How many connections the file may come over, and the smallest segment worth one.
    var segmentation: (connections: Int, minimumSize: Int64) {
        let asked = request.maximumConnections ?? settings.connectionsPerFile
        let connections = max(1, min(asked, settings.connectionsPerHost))
        return (connections, max(1, request.minimumSegmentSize ?? settings.minimumSegmentSize))
    }

    /// The bytes of the partial file that count, whatever the number of connections: the durable
    /// bytes of each segment, or the file's length.
    nonisolated static func bytesOnDisk(_ record: ResumeRecord, partialPath: String) -> Int64 {
        let fileLength = POSIXFile.length(atPath: partialPath) ?? 0
        guard let saved = record.segments, let length = record.expectedLength else { return fileLength }
        return SegmentMap(length: length, minimumSize: 1, saved: saved, fileLength: fileLength)?.durable ?? 0
    }

    /// The segments of this attempt when the file may come over several connections now: the
    /// record's (after a pause or a relaunch, on any URL: each segment's request compares the
    /// overlap before the bytes it continues), or the rest of the file split anew, once an answer
    /// to a range showed the file's length and a validator that can guard ranges (`If-Range`).
    /// Nil for one connection.
    func segmentMap(for record: ResumeRecord, url: URL, kind: StateMachine.AttemptKind) -> SegmentMap? {
        guard kind != .restart, !recoveryMemory.rangesRefused, record.isResumable,
            let length = record.expectedLength
        else { return nil }
        let (connections, minimumSize) = segmentation
        let fileLength = POSIXFile.length(atPath: location.path) ?? 0
        if let saved = record.segments {
            return SegmentMap(length: length, minimumSize: minimumSize, saved: saved, fileLength: fileLength)
        }
        guard record.url == url, record.validator.ifRangeValue != nil, connections > 1,
            record.response?.statusCode == 206, fileLength < length,
            length - fileLength >= 2 * minimumSize
        else { return nil }
        return SegmentMap(length: length, from: fileLength, connections: connections, minimumSize: minimumSize)
    }

    /// Asks the manager for the connections past the download's own slot (each counts against
    /// its limits as a download does), then runs the attempt over as many as it gave.
    func borrowConnections(for attempt: Int, _ kind: StateMachine.AttemptKind, _ map: SegmentMap) {
        let wanted = min(segmentation.connections, map.usefulConnections) - 1
        let observer = context.observer
        Task {
            let extra = wanted > 0 ? await observer.connections(for: self, upTo: wanted) : 0
            self.connectionsGiven(extra, to: attempt, kind, map)
        }
    }

    private func connectionsGiven(_ extra: Int, to attempt: Int, _ kind: StateMachine.AttemptKind, _ map: SegmentMap) {
        guard machine.state == .running(attempt: attempt) else {
            // Paused or cancelled while the manager was asked: the attempt ends before it began.
            if extra > 0 { context.observer.downloadReturnsConnections(self) }
            attemptEnded(attempt, .cancelled)
            return
        }
        startSegmentedAttempt(attempt, kind, map, connections: 1 + extra)
    }

    /// Runs the attempt over `connections` connections, one per segment of `map` at a time.
    func startSegmentedAttempt(
        _ attempt: Int, _ kind: StateMachine.AttemptKind, _ map: SegmentMap, connections: Int
    ) {
        guard let recordFile else { return }
        var record = recordFile.record.resume
        let url = sources.current
        let isNewURL = record.url != url
        if isNewURL {
            // A validator of another URL means nothing here: no `If-Range`, the overlaps decide.
            record.validator = Validator()
        }
        let urlRequest = baseRequest(to: url)
        do throws(DownloadError) {
            try preparePlaces()
            // Only the bytes from the first on, with no gap, can be hashed: the saved digest goes
            // on from where it is (reading nothing here, on the actor), the transfer's checkpoints
            // catch it up as the prefix grows.
            let algorithm = digestAlgorithm(of: record)
            let saved = record.digest.map { $0.algorithm == algorithm ? $0.length : 0 } ?? 0
            let digest = try continuedDigest(of: &record, upTo: min(saved, map.durablePrefix))
            record.digest = digest
        } catch {
            if connections > 1 { context.observer.downloadReturnsConnections(self) }
            handle(machine.attemptEnded(attempt, .failed(error)))
            return
        }
        let setup = SegmentedTransfer.Setup(
            attempt: attempt, url: url, request: urlRequest, record: record, recordFile: recordFile,
            partialPath: location.path, map: map, connections: connections,
            maximumBytesPerRequest: settings.maximumBytesPerRequest, announcesResume: kind == .run,
            onServerFileChange: request.onServerFileChange, overlapLength: Int64(settings.overlapLength),
            isNewURL: isNewURL, settings: settings.transfer,
            retryPolicy: settings.retryPolicy, clock: settings.clock, downloadID: id)
        let observer = context.observer
        observer.download(self, willSend: urlRequest)
        let transfer = SegmentedTransfer(
            setup, transport: engines.ranged, progress: progressReporter,
            publish: { [weak self] in self?.publishEvent($0) },
            observeResponse: { [weak self] response in
                guard let self else { return }
                observer.download(self, didReceive: response)
            },
            onEnd: { [weak self] ending in
                Task { [weak self] in
                    await self?.segmentedAttemptEnded(attempt, ending, returningConnections: connections > 1)
                }
            })
        self.transfer = transfer
        transfer.start()
    }

    private func segmentedAttemptEnded(
        _ attempt: Int, _ ending: SegmentedTransfer.Ending, returningConnections: Bool
    ) {
        if returningConnections {
            context.observer.downloadReturnsConnections(self)
        }
        if ending.rangesRefused {
            recoveryMemory.rangesRefused = true
        }
        attemptEnded(attempt, ending.end, response: ending.response)
    }

    /// One connection continues a file that had segments: from its bytes before the first gap.
    /// The file is cut there first, then the record forgets the segments (a process killed in
    /// between finds segments longer than the file, and trusts only the bytes the file has).
    /// Returns that length.
    func abandonSegments(of record: ResumeRecord) throws(DownloadError) -> Int64 {
        guard let saved = record.segments, let length = record.expectedLength else { return 0 }
        let fileLength = POSIXFile.length(atPath: location.path) ?? 0
        let prefix =
            SegmentMap(length: length, minimumSize: 1, saved: saved, fileLength: fileLength)?.durablePrefix ?? 0
        if fileLength > prefix {
            let descriptor = try POSIXFile.openForWriting(atPath: location.path)
            defer { POSIXFile.close(descriptor) }
            try POSIXFile.truncate(descriptor, to: prefix, path: location.path)
        }
        try recordFile?.update { stored in
            stored.resume.segments = nil
            stored.resume.durableLength = prefix
        }
        return prefix
    }
}
