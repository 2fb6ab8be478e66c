import Foundation

extension RangedTransfer {
    /// The head of the response: refused, a challenge, or decided on (see ``ResponseDecision``).
    func didReceive(_ response: ServerResponse) {
        guard sink.decidedEnd == nil else { return }
        guard sink.intake.file == nil else {
            return reject(.failed(.unexpectedResponse("a second response to one request")))
        }
        guard response.statusCode > 0 else {
            return reject(.failed(.unexpectedResponse("the response is not HTTP")))
        }
        sink.lastResponse = response
        observeResponse?(response)
        if let refusal = refusedRedirect {
            return reject(.failed(refusal))
        }
        if let location = ResponseHead.unreadableLocation(of: response) {
            return reject(.failed(.unexpectedResponse("the server redirected to a malformed Location: \(location)")))
        }
        if setup.answersChallenges, [401, 407].contains(response.statusCode) {
            return reject(
                .challenged(
                    AuthenticationChallenge(
                        downloadID: setup.downloadID, response: response,
                        previousFailureCount: setup.previousChallenges)))
        }
        let head = ResponseHead(response)
        switch ResponseDecision.decide(head, for: setup.plan) {
        case .write(let body):
            accept(body, head: head, response: response)
        case .alreadyComplete(let length):
            sink.record.expectedLength = length
            sink.record.durableLength = length
            if length == 0 {
                // An empty file: there is no range to ask for, and nothing to write.
                do {
                    try PartialFile(path: setup.partialPath, keepingFirst: 0, bufferCapacity: 0)
                        .close()
                } catch {
                    return reject(.failed(error))
                }
            }
            reject(.finished)
        case .restart(let reason):
            reject(.restart(reason: reason))
        case .existingCopyIsCurrent(let path):
            reject(.destinationIsCurrent(URL(fileURLWithPath: path, isDirectory: false)))
        case .fail(let error):
            reject(.failed(error))
        }
    }

    private func accept(_ body: ResponseDecision.BodyPlan, head: ResponseHead, response: ServerResponse) {
        let kept = body.keptLength
        if let taken = takenName(head, keeping: kept) {
            return reject(.failed(taken))
        }
        if let shortage = spaceShortage(for: body, keeping: kept) {
            return reject(.failed(shortage))
        }
        do {
            if body.verifiedPrefix > 0 {
                // The bytes on disk: the partial file's, or those of the file the request continues.
                let path = setup.existingFile?.path ?? setup.partialPath
                sink.intake.overlap = try OverlapCheck(path: path, range: body.start..<kept)
            }
            if setup.existingFile == nil {
                try openPartialFile(for: body)
            }
        } catch {
            return reject(.failed(error))
        }
        sink.body = body
        sink.accepted = (head, response)
        if body.repeatsPartial, setup.plan.ifRangeHeader != nil {
            // A server that answers `If-Range` with its whole file: later requests to it leave
            // `If-Range` out, and the overlap guards them.
            setup.settings.ifRangeIgnorers.remember(setup.url)
        }
        if sink.intake.overlap == nil {
            commit()
        }
    }

    /// Opens the partial file for `body`, keeping the bytes before it.
    private func openPartialFile(for body: ResponseDecision.BodyPlan) throws(DownloadError) {
        let settings = setup.settings
        let kept = body.keptLength
        // No bigger than the body, when its end is known: small files are many.
        let bodyLength = (body.end ?? body.totalLength).map { max(0, $0 - kept) }
        let capacity =
            bodyLength.map { Int.clamped($0, atMost: settings.writeBufferCapacity) } ?? settings.writeBufferCapacity
        sink.intake.file = try PartialFile(
            path: setup.partialPath, keepingFirst: kept, bufferCapacity: capacity, disk: settings.disk)
        if bodyLength == nil {
            sink.intake.spaceWatch = SpaceWatch(directory: setup.partialPath.parentPath, from: kept)
        }
        settings.marker.markOwn(setup.partialPath)
    }

    /// The body's bytes are to be written (the overlap, if any, matched): records which file the
    /// partial holds now, and says so.
    func commit() {
        guard let body = sink.body, let (head, response) = sink.accepted else { return }
        let kept = body.keptLength
        sink.record.url = setup.url
        sink.record.validator = head.validator
        sink.record.expectedLength = body.totalLength
        sink.record.durableLength = kept
        sink.record.isResumable = body.isResumable
        sink.record.response = response
        if setup.settings.verifiesServerDigests, body.discardsPartial || sink.record.serverDigest == nil {
            // The response's file replaces the partial's, or continues one whose digest was not
            // known (changed digests were refused by the decision).
            sink.record.serverDigest = head.serverDigests.first
        }
        let algorithm = setup.expectedAlgorithm ?? sink.record.serverDigest?.digest.algorithm
        if let digest = sink.record.digest, digest.algorithm == algorithm {
            if digest.length != kept {
                // The digest covers what the file keeps: nothing, or the bytes this range continues.
                sink.record.digest = kept == 0 ? RunningDigest(digest.algorithm) : nil
            }
        } else {
            // A digest known from this response on: hashed from the first byte, or, when bytes are
            // kept, read from the disk at delivery.
            sink.record.digest = kept == 0 ? algorithm.map { RunningDigest($0) } : nil
        }
        if setup.namesFile {
            sink.record.suggestedFileName = FileName.suggested(
                contentDisposition: head.contentDisposition, url: head.url)
        }
        if let existing = setup.existingFile {
            guard continueExistingFile(existing, for: body) else { return }
        }
        scheduleCheckpoint(after: kept)
        if storedRecordMisleads(after: body) {
            do {
                try saveRecord()
            } catch {
                return reject(.failed(error))
            }
        }
        progress.begin(bytesReceived: kept, expectedBytes: body.totalLength)
        if body.discardsPartial, setup.plan.offset > 0 {
            publish(.restarted)
        } else if kept > 0, setup.announcesResume {
            publish(.resumed(at: kept))
        }
    }

    /// The file at the destination is the start of the server's file (its last bytes matched):
    /// it becomes the download's partial file. The record that says so is saved first, then the
    /// file is renamed, so that a process killed in between finds either the file where it was
    /// (and a record whose partial file is not there: it looks again), or the partial file and its
    /// record; never the file's bytes with a record that would write over them. A file as long as
    /// the server's is the download's file, and stays where it is. Returns whether the body goes
    /// on (else the request was rejected).
    private func continueExistingFile(_ existing: ExistingFile, for body: ResponseDecision.BodyPlan) -> Bool {
        let kept = body.keptLength
        if let total = body.totalLength, kept >= total {
            guard existing.mayBeWhole else {
                reject(
                    .failed(
                        .existingFileNotContinued(
                            path: existing.path,
                            reason: "it is as long as the server's file, and has not the expected digest")))
                return false
            }
            reject(.destinationIsCurrent(URL(fileURLWithPath: existing.path, isDirectory: false)))
            return false
        }
        do throws(DownloadError) {
            try saveRecord()
            try FilePlacement.move(existing.path, to: setup.partialPath)
        } catch {
            reject(.failed(error))
            return false
        }
        do throws(DownloadError) {
            try openPartialFile(for: body)
        } catch {
            // (Not a file of this process's user with one name, say, swapped in since it was
            // looked at.) It goes back where it was, unless something took its place meanwhile.
            if !POSIXFile.exists(atPath: existing.path) {
                try? FilePlacement.move(setup.partialPath, to: existing.path)
            }
            reject(.failed(error))
            return false
        }
        return true
    }

    /// The failure of a response whose file, named by the server, would take the name of a file
    /// that is there and may not be replaced: found now, before a byte is downloaded for nothing
    /// (at the end the file could not be placed). With bytes kept from earlier responses, they
    /// stay kept for a later resume.
    private func takenName(_ head: ResponseHead, keeping kept: Int64) -> DownloadError? {
        guard let directory = setup.refusesTakenNameIn else { return nil }
        let path = POSIXFile.path(
            FileName.suggested(contentDisposition: head.contentDisposition, url: head.url), in: directory)
        guard POSIXFile.exists(atPath: path) else { return nil }
        return kept > 0 ? .destinationExists(path: path) : .destinationExistsBeforeDownloading(path: path)
    }

    /// Why the rest of the file cannot fit on the partial file's disk, when its length is known
    /// and the disk says how much room it has; checked before the first byte is written, so a
    /// file that cannot fit does not fill the disk first. The partial file stays as it is.
    private func spaceShortage(for body: ResponseDecision.BodyPlan, keeping kept: Int64) -> DownloadError? {
        guard let total = body.totalLength,
            var available = POSIXFile.availableBytes(atPath: setup.partialPath.parentPath)
        else { return nil }
        let needed = total - kept
        guard needed > available else { return nil }
        // Bytes past what is kept are given back when the file is cut to it.
        let existing = POSIXFile.length(atPath: setup.partialPath) ?? 0
        available += max(0, existing - kept)
        guard needed > available else { return nil }
        return .insufficientSpace(
            path: setup.partialPath,
            reason: "the file needs \(needed) more bytes and only \(available) are free")
    }

    /// Whether the stored record, as it is, would let a relaunch misread the partial file once
    /// this response's bytes are in it: it says the file can be continued, and this response
    /// replaces the file or describes it differently. Then the new record is written before the
    /// first byte; otherwise at the first checkpoint (a record that says the file cannot be
    /// continued makes a relaunch start from the first byte, which is always safe).
    private func storedRecordMisleads(after body: ResponseDecision.BodyPlan) -> Bool {
        let stored = setup.recordFile.resume(startingOverFrom: setup.url)
        guard stored.isResumable else { return false }
        return body.discardsPartial || !body.isResumable || stored.url != sink.record.url
            || stored.validator != sink.record.validator
            || stored.expectedLength != sink.record.expectedLength
            || stored.suggestedFileName != sink.record.suggestedFileName
    }
}
