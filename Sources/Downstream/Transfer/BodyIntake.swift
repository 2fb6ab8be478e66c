/// The body path every ranged request shares, a single request's (``RangedTransfer``) and each
/// segment's (``SegmentRequest``): the disk's room and the bandwidth limit admit a chunk; the
/// bytes a body repeats before the resume point are compared with the disk's before anything is
/// written; the rest is appended to the partial file; checkpoints come due after so many bytes;
/// at the end the limiter forgets the task and the bytes go to the file system.
///
/// Its owners keep what differs between them: where a body may end, and what a checkpoint saves
/// (the record, or a segment's bytes in it). Its methods are called from the transport's events,
/// one at a time.
struct BodyIntake {
    /// The partial file the body is written into, once a response was accepted.
    var file: PartialFile?
    /// The bytes before the resume point, while the body's first bytes are compared with them:
    /// nothing is written until they matched.
    var overlap: OverlapCheck?
    /// When the next checkpoint is due.
    var checkpoints = CheckpointSchedule()
    /// For a body of unknown length, the disk's free space as it grows.
    var spaceWatch: SpaceWatch?
    /// The task, once a bandwidth limit made it wait: the limiter forgets it at the end.
    private var waitedForLimit: (any TransportTask)?

    /// Whether a chunk of `count` bytes of `task` may be taken now: nil when it may; else what to
    /// answer the transport. The disk is behind (the task resumes once the file has room), or a
    /// bandwidth limit says wait (the limiter resumes the task in its turn); a body with no file
    /// to go to, nor an overlap to compare (a file that becomes the partial once it matched), is
    /// dropped.
    mutating func admit(
        _ count: Int, of task: any TransportTask, limiter: BandwidthLimiter?, downloadID: DownloadID
    ) -> BodyReception? {
        if let file {
            guard file.hasRoom(for: count) else {
                file.whenRoom { task.resumeBody() }
                return .later
            }
        } else if overlap == nil {
            return .taken
        }
        if let limiter, !limiter.admit(count, for: downloadID, task: task) {
            waitedForLimit = task
            return .later
        }
        return nil
    }

    /// What comes of a chunk while the overlap is compared.
    enum OverlapStep {
        /// The bytes after the repeated ones (perhaps none); `matched` when the overlap was
        /// complete with this chunk.
        case rest(UnsafeRawBufferPointer, matched: Bool)
        /// The repeated bytes are not the disk's: the server's file is another. Nothing was
        /// written.
        case differs(OverlapCheck)
        /// The disk's bytes to compare with could not be read.
        case unreadable(DownloadError)
    }

    /// Compares the bytes of `bytes` that the body repeats with the disk's; all of `bytes` is the
    /// rest once the overlap matched.
    mutating func compareOverlap(_ bytes: UnsafeRawBufferPointer) -> OverlapStep {
        guard var check = overlap else { return .rest(bytes, matched: false) }
        var repeated = 0
        while true {
            guard let count = check.consume(UnsafeRawBufferPointer(rebasing: bytes[repeated...])) else {
                return .differs(check)
            }
            repeated += count
            guard repeated < bytes.count, check.needsNextWindow else { break }
            do throws(DownloadError) {
                try check.readNextWindow()
            } catch {
                return .unreadable(error)
            }
        }
        overlap = check.isComplete ? nil : check
        return .rest(UnsafeRawBufferPointer(rebasing: bytes[repeated...]), matched: check.isComplete)
    }

    /// Puts the file's bytes on the file system (on the disk, with `synchronizes`) for a
    /// checkpoint, and makes the next one due after `settings`' bytes; returns the file's length
    /// there.
    mutating func checkpoint(synchronizes: Bool, settings: CheckpointSettings) throws(DownloadError) -> Int64 {
        guard let file else { return 0 }
        try synchronizes ? file.synchronize() : file.flush()
        checkpoints.restart(after: file.writtenLength, settings)
        return file.writtenLength
    }

    /// The request of `task` ended: the limiter forgets the task, the file's bytes go to the file
    /// system (on the disk, with `synchronizes`) and the file closes. Returns the file's length
    /// there and what kept its bytes from it, or nil when there was no file.
    mutating func close(
        _ task: (any TransportTask)?, limiter: BandwidthLimiter?, synchronizes: Bool
    ) -> (writtenLength: Int64, failure: DownloadError?)? {
        if let waited = waitedForLimit ?? task {
            limiter?.transferEnded(waited)
        }
        guard let file else { return nil }
        self.file = nil
        var failure: DownloadError?
        do throws(DownloadError) {
            try synchronizes ? file.synchronize() : file.flush()
        } catch {
            failure = error
        }
        file.close()
        return (file.writtenLength, failure)
    }
}
