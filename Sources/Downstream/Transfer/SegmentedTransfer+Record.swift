import Foundation

extension SegmentedTransfer {
    /// What `save` threw, as a value to throw once the lock is released. (Not a `Result`: the
    /// Swift 5.8 library of the iOS 16.5 SDK that the deeper iOS check reads has no typed-throws
    /// `Result(catching:)` or `get()`.)
    private static func failure(of save: () throws(DownloadError) -> Void) -> DownloadError? {
        do throws(DownloadError) {
            try save()
            return nil
        } catch {
            return error
        }
    }

    /// Saves the segments, then makes the partial file ready for them: cut to the file's length
    /// if longer, and its space reserved up front where the file system can (the free space must
    /// hold the whole rest of the file).
    ///
    /// The record comes first: once segments write, the partial file is longer than its bytes
    /// from the first byte on, and only the record says which bytes are there.
    func prepareFile() throws(DownloadError) {
        let snapshot = state.withLock { $0.snapshot() }
        try save(snapshot) { $0.isResumable = true }
        let path = setup.partialPath
        let length = setup.map.length
        let descriptor = try POSIXFile.openForWriting(atPath: path)
        defer { POSIXFile.close(descriptor) }
        setup.settings.marker.markOwn(path)
        let existing = POSIXFile.length(atPath: path) ?? 0
        if existing > length {
            try POSIXFile.truncate(descriptor, to: length, path: path)
        } else if existing < length {
            if let available = POSIXFile.availableBytes(atPath: path.parentPath), length - existing > available {
                throw .insufficientSpace(
                    path: path, reason: "the file needs \(length - existing) more bytes and only \(available) are free")
            }
            try POSIXFile.reserve(descriptor, length: length, path: path)
        }
    }

    /// Opens the partial file to write `length` bytes from `offset` on.
    func openFile(from offset: Int64, length: Int64) throws(DownloadError) -> PartialFile {
        let settings = setup.settings
        return try PartialFile(
            path: setup.partialPath, segmentFrom: offset,
            bufferCapacity: Int.clamped(max(1, length), atMost: settings.writeBufferCapacity), disk: settings.disk)
    }

    /// The segment at `start` has its bytes up to file offset `durable` on disk: saves the record.
    func checkpoint(segmentAt start: Int64, durableTo durable: Int64) throws(DownloadError) {
        let snapshot = state.withLock { $0.checkpoint(segmentAt: start, durableTo: durable) }
        try save(snapshot)
    }

    /// Writes the record as `snapshot` saw the map, after `change`: each segment's durable bytes,
    /// and the digest of the bytes from the first byte on with no gap, read back from the disk as
    /// that prefix grows. A snapshot older than the one saved last is not written (a newer
    /// checkpoint of another connection got there first, and holds its bytes too).
    private func save(
        _ snapshot: MapSnapshot, change: (inout ResumeRecord) -> Void = { _ in }
    ) throws(DownloadError) {
        let failure: DownloadError? = records.withLock { records in
            guard snapshot.sequence > records.savedSequence else { return nil }
            records.savedSequence = snapshot.sequence
            change(&records.resume)
            return Self.failure { () throws(DownloadError) in try write(snapshot, into: &records) }
        }
        if let failure { throw failure }
    }

    private func write(_ snapshot: MapSnapshot, into records: inout Records) throws(DownloadError) {
        let prefix = snapshot.durablePrefix
        if snapshot.digestRestarts > records.digestRestarts, let digest = records.resume.digest {
            records.digestRestarts = snapshot.digestRestarts
            records.resume.digest = RunningDigest(digest.algorithm)
        }
        records.resume.segments = snapshot.segments
        records.resume.durableLength = prefix
        if var digest = records.resume.digest, digest.length < prefix {
            // At most a checkpoint's worth at a time: this runs on the transport's thread of a
            // connection, and the prefix can jump by whole segments when a gap closes. What is
            // left is read at the next checkpoint, or when the file is delivered.
            let budget = max(setup.settings.checkpoints.bytes, 1)
            try digest.update(fromFileAt: setup.partialPath, upTo: min(prefix, digest.length + budget))
            records.resume.digest = digest
        }
        let record = records.resume
        try setup.recordFile.update { $0.resume = record }
    }

    /// Saves the record for the attempt's end and tells the download. A finished file's record
    /// has no segments: the partial file is the file.
    func finish(_ proposed: TransferEnd) {
        var end = proposed
        let (snapshot, response, rangesRefused) = state.withLock { ($0.snapshot(), $0.lastResponse, $0.rangesRefused) }
        var failure: DownloadError?
        do throws(DownloadError) {
            if end == .finished {
                let record = records.withLock { records in
                    let length = snapshot.length
                    records.resume.segments = nil
                    records.resume.durableLength = length
                    records.resume.expectedLength = length
                    return records.resume
                }
                try setup.recordFile.update { $0.resume = record }
            } else {
                try save(snapshot)
            }
        } catch {
            failure = error
        }
        if let failure, end != .finished {
            // Without its record the partial cannot be resumed; a complete file needs none.
            end = .failed(failure)
        }
        onEnd(Ending(end: end, response: response, rangesRefused: rangesRefused))
    }
}
