import Foundation

extension Download {
    /// Checks the complete partial file (the expected digest or the server's, then the validators), then moves
    /// it into place and forgets the record (in that order: a process killed in between finds a
    /// record whose bytes were all received and no partial file, and knows the file was
    /// delivered).
    ///
    /// The checks and the move run off the actor: they may read the whole file, validators are
    /// the app's code, and a move may wait for the disk (it runs on a file-work thread). The
    /// download stays `.running` (finalizing) meanwhile.
    func finalize() {
        let check = digestToCheck
        let record = recordFile?.record
        let inspection = Inspection(
            path: location.path, expectedDigest: check?.digest, digestSource: check?.source,
            digest: record?.resume.digest, response: record?.resume.response,
            validations: request.checks.map(\.run) + responseChain.validations,
            keepsRejectedFile: request.onRejectedFile == .keep)
        // Only a directory destination takes the server's name.
        var name = ""
        if request.destination.fileURL == nil {
            name = record?.resume.suggestedFileName ?? FileName.suggested(contentDisposition: nil, url: request.url)
        }
        var copyToRemember: (DeliveredCopies, URL, Validator)?
        if request.destination.conflictPolicy == .replaceIfChanged, let copies = context.deliveredCopies,
            let validator = record?.resume.validator
        {
            copyToRemember = (copies, sources.current, validator)
        }
        let delivery = Delivery(
            partialPath: location.path, destination: request.destination, suggestedName: name,
            modificationTime: settings.usesServerModificationTime ? serverModificationTime : nil,
            marker: settings.engine.transfer.marker, protection: request.fileProtection,
            copyToRemember: copyToRemember, synchronizesToDisk: settings.engine.transfer.synchronizesToDisk,
            recordFile: recordFile, discardsRejectedFile: request.onRejectedFile == .discard,
            progress: progressReporter)
        Task {
            let result = await delivery.run(after: inspection)
            self.handle(self.machine.finalized(result))
        }
    }
}

/// What moves a complete, inspected file into place, taken from the download when the last byte
/// came.
struct Delivery: Sendable {
    var partialPath: String
    var destination: Destination
    /// The name of the file in a directory destination.
    var suggestedName: String
    /// The server's `Last-Modified`, for the file's modification time.
    var modificationTime: Date?
    var marker: FileMarker
    var protection: FileProtection?
    /// Where the manager remembers the files it delivered, with the URL and validators of this one.
    var copyToRemember: (copies: DeliveredCopies, url: URL, validator: Validator)?
    var synchronizesToDisk: Bool
    var recordFile: DownloadRecordFile?
    var discardsRejectedFile: Bool
    var progress: ProgressReporter

    /// Inspects the file; moves it into place if it passed, else discards it if asked to.
    /// Returns the file's place, or why it is not there.
    @concurrent func run(after inspection: Inspection) async -> Result<URL, DownloadError> {
        // The file work on a file-work thread: a rename, the file's times and a record's frame
        // may each wait for a busy disk, and Swift's pool runs only as many jobs as there are
        // cores, a job waiting for the disk included.
        let delivery = self
        if let rejection = await inspection.run() {
            if discardsRejectedFile {
                await FileWork.value { delivery.discard() }
            }
            return .failure(rejection)
        }
        return await FileWork.value { delivery.place() }
    }

    /// Forgets the rejected file's bytes. File work.
    private func discard() {
        // The record first: a process killed in between starts over rather than resume.
        try? recordFile?.update { $0.startOver() }
        POSIXFile.removeOwnFile(atPath: partialPath)
        progress.begin(bytesReceived: 0, expectedBytes: nil)
    }

    /// Moves the inspected file into place and forgets its record. File work.
    private func place() -> Result<URL, DownloadError> {
        if let modificationTime {
            // Set before the rename: the file appears with its time.
            POSIXFile.setModificationTime(modificationTime, atPath: partialPath)
        }
        do {
            let url = try FilePlacement.place(partialPath, at: destination, suggestedName: suggestedName)
            marker.markDelivered(url.path, protection: protection)
            if let (copies, source, validator) = copyToRemember,
                let copy = DeliveredCopy(path: url.path, url: source, validator: validator)
            {
                copies.remember(copy)
            }
            if synchronizesToDisk {
                // The rename itself is on the disk once its directory is.
                try? POSIXFile.synchronize(url.deletingLastPathComponent())
            }
            recordFile?.remove()
            return .success(url)
        } catch {
            return .failure(error)
        }
    }
}

extension Download {
    /// The server's `Last-Modified` of the file delivered, if it gave one.
    var serverModificationTime: Date? {
        guard let record = recordFile?.record else { return nil }
        let text =
            record.resume.response?.value(forHTTPHeaderField: "Last-Modified") ?? record.resume.validator.lastModified
        return text.flatMap(HTTPDate.parse)
    }
}

/// What is checked before a complete file is delivered, taken from the download when the last
/// byte came.
struct Inspection: Sendable {
    var path: String
    var expectedDigest: Digest?
    /// Where ``expectedDigest`` comes from when it is not the request's ("the server's
    /// Repr-Digest").
    var digestSource: String?
    /// The digest of the file's first bytes, as computed while writing them.
    var digest: RunningDigest?
    var response: ServerResponse?
    var validations: [ResponseChain.Validation]
    var keepsRejectedFile: Bool

    /// Why the file is refused, or nil to deliver it.
    @concurrent func run() async -> DownloadError? {
        let keptPath = keepsRejectedFile ? path : nil
        if let expectedDigest {
            do {
                // Bytes not hashed while written (a system download, a relaunch, several
                // connections) are read now, on a file-work thread: a whole file may be read.
                let (path, digest, algorithm) = (path, digest, expectedDigest.algorithm)
                let actual = try await FileWork.value { () throws(DownloadError) -> [UInt8] in
                    let length = POSIXFile.length(atPath: path) ?? 0
                    return try RunningDigest.resuming(digest, algorithm, fileAt: path, length: length).finalized()
                }
                if actual != expectedDigest.bytes {
                    return .integrityCheckFailed(
                        expected: expectedDigest, actual: actual.hexString, path: keptPath, source: digestSource)
                }
            } catch {
                return error
            }
        }
        guard !validations.isEmpty else { return nil }
        guard let response else {
            return .validationFailed(
                "the response is not known (the download was stored by an older version)", path: keptPath)
        }
        let file = URL(fileURLWithPath: path)
        for validation in validations {
            do {
                try await validation(response, file)
            } catch {
                return .validationFailed(String(describing: error), path: keptPath)
            }
        }
        return nil
    }
}
