import Foundation

extension Download {
    /// Checks the complete partial file (the expected digest or the server's, then the validators), then moves
    /// it into place and forgets the record (in that order: a process killed in between finds a
    /// record whose bytes were all received and no partial file, and knows the file was
    /// delivered).
    ///
    /// The checks run off the actor: they may read the whole file, and validators are the app's
    /// code. The download stays `.running` (finalizing) meanwhile.
    func finalize() {
        let check = digestToCheck
        let inspection = Inspection(
            path: location.path, expectedDigest: check?.digest, digestSource: check?.source,
            digest: recordFile?.record.resume.digest, response: recordFile?.record.resume.response,
            validations: request.checks.map(\.run) + responseChain.validations,
            keepsRejectedFile: request.onRejectedFile == .keep)
        Task {
            let rejection = await inspection.run()
            self.deliver(rejectedWith: rejection)
        }
    }

    private func deliver(rejectedWith rejection: DownloadError?) {
        if let rejection {
            if request.onRejectedFile == .discard {
                // The record first: a process killed in between starts over rather than resume.
                try? recordFile?.update { $0.startOver() }
                POSIXFile.remove(atPath: location.path)
                progressReporter.begin(bytesReceived: 0, expectedBytes: nil)
            }
            handle(machine.finalized(.failure(rejection)))
            return
        }
        // Only a directory destination takes the server's name.
        var name = ""
        if request.destination.fileURL == nil {
            name =
                recordFile?.record.resume.suggestedFileName
                ?? FileName.suggested(contentDisposition: nil, url: request.url)
        }
        if settings.usesServerModificationTime, let date = serverModificationTime {
            // Set before the rename: the file appears with its time.
            try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: location.path)
        }
        do {
            let url = try FilePlacement.place(location.partialURL, at: request.destination, suggestedName: name)
            settings.engine.transfer.marker.markDelivered(url.path, protection: request.fileProtection)
            if request.destination.conflictPolicy == .replaceIfChanged, let copies = context.deliveredCopies,
                let validator = recordFile?.record.resume.validator,
                let copy = DeliveredCopy(path: url.path, url: sources.current, validator: validator)
            {
                copies.remember(copy)
            }
            if settings.engine.transfer.synchronizesToDisk {
                // The rename itself is on the disk once its directory is.
                try? POSIXFile.synchronize(url.deletingLastPathComponent())
            }
            recordFile?.remove()
            handle(machine.finalized(.success(url)))
        } catch {
            handle(machine.finalized(.failure(error)))
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
                // Bytes not hashed while written (a system download, a relaunch) are read now.
                let length = POSIXFile.length(atPath: path) ?? 0
                let actual = try RunningDigest.resuming(digest, expectedDigest.algorithm, fileAt: path, length: length)
                    .finalized()
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
