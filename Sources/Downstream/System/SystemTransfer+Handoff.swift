import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SystemTransfer {
    /// The system finished the task of a handoff: its file is the answer's body from the first
    /// byte asked for. It is appended to the partial file only if the answer is a `206` at that
    /// byte with the record's validators and length (``HandoffVerdict``), and its first bytes are
    /// the partial file's before the offset; else it is discarded and the partial file kept. Runs
    /// before the delegate call returns (the system deletes the file after it).
    func finishedHandoff(to location: URL, response: URLResponse?, handoff: SystemHandoff) {
        defer { POSIXFile.remove(location) }
        let partialPath = target.partialURL.path
        guard let http = response as? HTTPURLResponse else {
            return fileHandedOver(.failed(.unexpectedResponse("the system's task has no HTTP response")))
        }
        let head = ResponseHead(ServerResponse(http))
        let policy = DownloadRequest.ServerFileChangePolicy(code: target.recordFile.record.request.onServerFileChange)
        let verdict = HandoffVerdict.decide(
            head, for: handoff, onServerFileChange: policy,
            partialLength: POSIXFile.length(atPath: partialPath) ?? 0,
            fileLength: POSIXFile.length(of: location) ?? 0)
        switch verdict {
        case .discard(let end, _):
            forgetHandoff()
            fileHandedOver(.refused(end))
        case .append(let overlap, let length):
            do throws(DownloadError) {
                if let mismatch = try Self.overlapMismatch(location, partialPath, handoff: handoff, overlap: overlap) {
                    forgetHandoff()
                    let end: TransferEnd =
                        policy == .fail ? .failed(.serverFileChanged(mismatch)) : .restart(reason: mismatch)
                    return fileHandedOver(.refused(end))
                }
                try Self.append(location, from: overlap, to: partialPath, at: handoff.offset)
                try target.recordFile.update { record in
                    record.resume.expectedLength = length
                    record.resume.durableLength = length
                    record.resume.segments = nil
                    // Computed from the disk before delivery, as for every file the system wrote.
                    record.resume.digest = nil
                    if !head.validator.isEmpty { record.resume.validator = head.validator }
                    record.resume.response = ServerResponse(http)
                    record.resume.serverDigest = head.serverDigests.first ?? record.resume.serverDigest
                    record.systemResumeData = nil
                    record.handoff = nil
                }
                fileKept()
            } catch {
                fileHandedOver(.failed(error))
            }
        }
    }

    /// The record no longer says a task continues the partial file.
    private func forgetHandoff() {
        try? target.recordFile.update { $0.handoff = nil }
    }

    /// Why the first `overlap` bytes of the system's file are not the partial file's before the
    /// handoff's offset; nil when they are.
    private static func overlapMismatch(
        _ location: URL, _ partialPath: String, handoff: SystemHandoff, overlap: Int64
    ) throws(DownloadError) -> String? {
        guard overlap > 0 else { return nil }
        let received = try POSIXFile.bytes(atPath: location.path, in: 0..<overlap)
        let onDisk = try POSIXFile.bytes(atPath: partialPath, in: handoff.firstByte..<handoff.offset)
        return received == onDisk ? nil : "the \(overlap) bytes before byte \(handoff.offset) are not those on disk"
    }

    /// Appends the bytes of the file at `location` from `start` to the partial file at `offset`,
    /// and makes them durable.
    private static func append(
        _ location: URL, from start: Int64, to partialPath: String, at offset: Int64
    ) throws(DownloadError) {
        let length = POSIXFile.length(of: location) ?? 0
        let descriptor = try POSIXFile.openForWriting(atPath: partialPath)
        defer { POSIXFile.close(descriptor) }
        var position = offset
        var failure: DownloadError?
        try POSIXFile.read(atPath: location.path, from: start, to: length) { bytes in
            guard failure == nil else { return }
            if let errorNumber = POSIXFile.write(descriptor, bytes, at: position).errorNumber {
                failure = POSIXFile.failure(partialPath, "cannot write", errorNumber: errorNumber)
            }
            position += Int64(bytes.count)
        }
        if let failure { throw failure }
        try POSIXFile.synchronize(descriptor, path: partialPath)
    }
}
