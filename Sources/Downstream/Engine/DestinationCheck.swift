import Foundation

/// What a file already at the destination means for the first attempt of a run, looked at on a
/// file-work thread before its first request (see ``DownloadEngines``).
struct DestinationCheck: Sendable {
    /// What the attempt does about the file at the destination.
    enum Outcome: Sendable {
        /// It is the download's file: complete with it, without a request.
        case current(URL)
        /// It may not be replaced: fail before the first byte.
        case conflict(DownloadError)
        /// Ask for the file only if the server's changed since this copy.
        case conditional(ExistingCopy)
        /// Continue this file, if the server's bytes before its end are its own.
        case continuation(ExistingFile)
    }

    var request: DownloadRequest
    var recordFile: DownloadRecordFile
    var partialPath: String
    /// What the manager knows of the files it delivered (for `replaceIfChanged`).
    var deliveredCopies: DeliveredCopies?
    /// `request.destination.paths`.
    var destinationPaths: Destination.Paths

    /// What the file at the destination means; nil when there is nothing there that matters (or
    /// the conflict policy decides only at the end). An expected digest is checked here: a file
    /// that has it is the download's. Reads the disk.
    func run() -> Outcome? {
        let policy = request.destination.conflictPolicy.code
        let fileURL = request.destination.fileURL
        guard
            request.expectedDigest != nil || policy == .useExisting || policy == .replaceIfChanged
                || ((policy == .fail || policy == .continueExisting) && fileURL != nil)
        else { return nil }
        // A directory destination takes its name from the response: the one a previous response
        // gave, else the URL's.
        let paths = destinationPaths
        let name =
            paths.file == nil
            ? recordFile.resume.suggestedFileName ?? FileName.suggested(contentDisposition: nil, url: request.url) : ""
        guard POSIXFile.length(atPath: paths.file ?? POSIXFile.path(name, in: paths.directory)) != nil else {
            return nil
        }
        let existing = fileURL ?? request.destination.directoryURL.appendingPathComponent(name, isDirectory: false)
        if let expected = request.expectedDigest {
            let actual = try? Digest(expected.algorithm, ofFileAt: existing)
            if actual == expected { return .current(existing) }
            return decision(about: existing, isKnownWrong: true)
        }
        return decision(about: existing, isKnownWrong: false)
    }

    /// What the conflict policy makes of the existing file; `isKnownWrong` when it does not have
    /// the expected digest. A download with bytes on disk goes on (they are another version than
    /// the existing file), unless the existing file may be neither used nor replaced.
    private func decision(about existing: URL, isKnownWrong: Bool) -> Outcome? {
        let hasBytes = hasBytesToContinue
        let conflict = Outcome.conflict(
            hasBytes
                ? .destinationExists(path: existing.path) : .destinationExistsBeforeDownloading(path: existing.path))
        switch request.destination.conflictPolicy.code {
        case .useExisting:
            return isKnownWrong ? conflict : .current(existing)
        case .fail:
            return request.destination.fileURL == nil || hasBytes ? nil : conflict
        case .continueExisting:
            guard request.destination.fileURL != nil, !hasBytes else { return nil }
            let path = existing.path
            switch POSIXFile.continuableLength(atPath: path) {
            case .success(let length):
                return .continuation(ExistingFile(path: path, length: length, mayBeWhole: !isKnownWrong))
            case .failure(let refusal):
                return .conflict(.existingFileNotContinued(path: path, reason: refusal.reason))
            }
        case .replaceIfChanged:
            guard !isKnownWrong, !hasBytes, let modified = DeliveredCopy.fileState(atPath: existing.path)?.modified
            else { return nil }
            let delivered = deliveredCopies?.copy(at: existing.path)
            return .conditional(
                ExistingCopy(path: existing.path, validator: delivered?.validator ?? Validator(), modified: modified))
        case .replace, .uniqueName:
            return nil
        }
    }

    /// Whether the download has bytes to continue from: in its partial file, or with the system.
    private var hasBytesToContinue: Bool {
        let resume = recordFile.resume
        return recordFile.hasSystemResumeData
            || (resume.isResumable && AttemptTarget.bytesOnDisk(resume, partialPath: partialPath) > 0)
    }
}
