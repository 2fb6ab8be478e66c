import Foundation

extension Download {
    /// What a file already at the destination means for a download that has nothing on disk yet.
    enum DestinationCheck: Sendable {
        /// It is the download's file: complete with it, without a request.
        case current(URL)
        /// It may not be replaced: fail before the first byte.
        case conflict(DownloadError)
        /// It is the download's file if it has the expected digest.
        case verify(URL, Digest)
        /// Ask for the file only if the server's changed since this copy.
        case conditional(ExistingCopy)
    }

    /// Looks at the destination before the first request of a run: nil when there is nothing
    /// there that matters (or the conflict policy decides only at the end).
    func destinationCheck() -> DestinationCheck? {
        let policy = request.destination.conflictPolicy.code
        let fileURL = request.destination.fileURL
        guard
            request.expectedDigest != nil || policy == .useExisting || policy == .replaceIfChanged
                || (policy == .fail && fileURL != nil),
            let record = recordFile?.record
        else { return nil }
        // A directory destination takes its name from the response: the one a previous response
        // gave, else the URL's.
        let existing =
            fileURL
            ?? request.destination.directoryURL.appendingPathComponent(
                record.resume.suggestedFileName ?? FileName.suggested(contentDisposition: nil, url: request.url),
                isDirectory: false)
        guard POSIXFile.length(of: existing) != nil else { return nil }
        if let digest = request.expectedDigest {
            return .verify(existing, digest)
        }
        return existingFileDecision(existing, isKnownWrong: false)
    }

    /// Whether the download has bytes to continue from: in its partial file, or with the system.
    var hasBytesToContinue: Bool {
        guard let record = recordFile?.record else { return false }
        return record.systemResumeData != nil
            || (record.resume.isResumable && AttemptTarget.bytesOnDisk(record.resume, partialPath: location.path) > 0)
    }

    /// What the conflict policy makes of the existing file; `isKnownWrong` when it does not have
    /// the expected digest. A download with bytes on disk goes on (they are another version than
    /// the existing file), unless the existing file may be neither used nor replaced.
    func existingFileDecision(_ existing: URL, isKnownWrong: Bool) -> DestinationCheck? {
        let hasBytes = hasBytesToContinue
        let conflict = DestinationCheck.conflict(
            hasBytes
                ? .destinationExists(path: existing.path) : .destinationExistsBeforeDownloading(path: existing.path))
        switch request.destination.conflictPolicy.code {
        case .useExisting:
            return isKnownWrong ? conflict : .current(existing)
        case .fail:
            return request.destination.fileURL == nil || hasBytes ? nil : conflict
        case .replaceIfChanged:
            guard !isKnownWrong, !hasBytes, let modified = DeliveredCopy.fileState(atPath: existing.path)?.modified
            else { return nil }
            let delivered = context.deliveredCopies?.copy(at: existing.path)
            return .conditional(
                ExistingCopy(path: existing.path, validator: delivered?.validator ?? Validator(), modified: modified))
        case .replace, .uniqueName:
            return nil
        }
    }

    /// Acts on `check` for attempt `attempt`: returns the copy to ask about when the request is
    /// to be sent, conditionally; nil when the attempt ended, or goes on off the actor.
    func act(on check: DestinationCheck, attempt: Int) -> ExistingCopy? {
        switch check {
        case .current(let url):
            destinationIsCurrent(url, attempt: attempt)
        case .conflict(let error):
            if !error.isResumable {
                // Nothing was downloaded: nothing to keep, no record to leave behind.
                recordFile?.remove()
            }
            attemptEnded(attempt, .failed(error))
        case .verify(let url, let digest):
            Task {
                let matches = await Self.file(at: url, has: digest)
                self.existingFileVerified(attempt, url, matches: matches)
            }
        case .conditional(let copy):
            return copy
        }
        return nil
    }

    /// The existing file's digest was computed: it is the file, or the policy decides.
    private func existingFileVerified(_ attempt: Int, _ url: URL, matches: Bool) {
        if case .ended(let action) = machine.stepFinished(attempt, otherwise: .cancelled) {
            // Paused or cancelled meanwhile: no request was sent.
            handle(action)
            return
        }
        if matches {
            destinationIsCurrent(url, attempt: attempt)
            return
        }
        if let check = existingFileDecision(url, isKnownWrong: true) {
            if let copy = act(on: check, attempt: attempt) {
                sendRequest(attempt, .run, conditionalOn: copy)
            }
        } else {
            sendRequest(attempt, .run, conditionalOn: nil)
        }
    }

    /// Whether the file at `url` has `digest`, computed off the actor.
    @concurrent static func file(at url: URL, has digest: Digest) async -> Bool {
        guard let actual = try? Digest(digest.algorithm, ofFileAt: url) else { return false }
        return actual == digest
    }
}
