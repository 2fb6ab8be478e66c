extension RangedTransfer {
    /// Compares the overlap, if it is still being compared, then appends the rest to the file,
    /// up to where the body was announced to end; checkpoints when one is due. (A file continued
    /// from the destination is the partial file only once its overlap matched.)
    func receive(_ received: UnsafeRawBufferPointer) {
        let bytes: UnsafeRawBufferPointer
        switch sink.intake.compareOverlap(received) {
        case .differs(let overlap):
            return overlapDiffers(overlap)
        case .unreadable(let error):
            return reject(.failed(error))
        case .rest(let rest, let matched):
            if matched { commit() }
            bytes = rest
        }
        guard sink.decidedEnd == nil, !bytes.isEmpty, let file = sink.intake.file else { return }
        var count = bytes.count
        if let end = sink.body?.end, file.length + Int64(count) > end {
            count = Int.clamped(end - file.length, atMost: count)
            sink.decidedEnd = .failed(
                .unexpectedResponse("the body goes on past byte \(end - 1), where it was announced to end"))
        }
        if let limit = setup.plan.maximumLength, file.length + Int64(count) > limit {
            // Nothing past the limit is written.
            count = Int.clamped(max(0, limit - file.length), atMost: count)
            sink.decidedEnd = .failed(
                .fileTooLarge(
                    "the body goes on past \(limit) bytes, the most the request allows (maximumFileSize)",
                    path: setup.discardsRejectedFile ? nil : setup.partialPath))
        }
        let written = UnsafeRawBufferPointer(rebasing: bytes[..<count])
        do throws(DownloadError) {
            try file.append(written)
            sink.record.digest?.update(written)
        } catch {
            sink.decidedEnd = .failed(error)
        }
        progress.add(Int64(count))
        if sink.decidedEnd == nil,
            let shortage = sink.intake.spaceWatch?.shortage(
                at: file.length, unwritten: file.length - file.writtenLength)
        {
            sink.decidedEnd = .failed(shortage)
        }
        if sink.decidedEnd == nil,
            sink.intake.checkpoints.isDue(at: file.length)
        {
            checkpoint()
        }
    }

    /// The body's first bytes are not the partial file's: the server's file is another than the
    /// one the partial holds (whatever its validator says: validators come from modification
    /// times, which a replaced file can keep). Nothing was written; the partial is not to be
    /// continued.
    private func overlapDiffers(_ overlap: OverlapCheck) {
        let resumePoint = setup.plan.offset
        var reason = overlap.mismatch(before: resumePoint)
        if let validator = setup.plan.validator.ifRangeValue {
            reason += ", although the file's validator \(validator) did not change"
        }
        if let existing = setup.existingFile {
            let which =
                overlap.length < existing.length
                ? "its last \(overlap.length) bytes are not the server's"
                : "its \(overlap.length) bytes are not the server's first \(overlap.length)"
            return reject(
                .failed(
                    .existingFileNotContinued(
                        path: existing.path, reason: "it is not the start of the server's file: " + which)))
        }
        reject(setup.plan.onServerFileChange == .fail ? .failed(.serverFileChanged(reason)) : .restart(reason: reason))
    }

    /// Hands the buffered bytes to the file system and saves how many are there, so that a
    /// process killed now resumes from them.
    private func checkpoint() {
        do throws(DownloadError) {
            let settings = setup.settings
            sink.record.durableLength = try sink.intake.checkpoint(
                synchronizes: settings.synchronizesToDisk, settings: settings.checkpoints)
            try saveRecord()
        } catch {
            reject(.failed(error))
        }
    }

    func scheduleCheckpoint(after length: Int64) {
        sink.intake.checkpoints.restart(after: length, setup.settings.checkpoints)
    }

    func saveRecord() throws(DownloadError) {
        let record = sink.record
        try setup.recordFile.update { $0.resume = record }
    }
}
