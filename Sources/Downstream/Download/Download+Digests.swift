import Foundation

extension Download {
    /// Whether files are checked against the digests servers give (see
    /// ``DownloadManager/Configuration-swift.struct/Integrity-swift.struct``).
    var verifiesServerDigests: Bool { settings.transfer.verifiesServerDigests }

    /// The algorithm the file is hashed with: the request's expected digest's, else the server's
    /// digest's in `record` (when server digests are checked).
    func digestAlgorithm(of record: ResumeRecord) -> Digest.Algorithm? {
        request.expectedDigest?.algorithm ?? (verifiesServerDigests ? record.serverDigest?.digest.algorithm : nil)
    }

    /// The digest an attempt continues while it writes the file from byte `length` on: of the
    /// request's expected digest (the saved one caught up from the disk, or one from the first
    /// byte), else of the server's digest in `record` when its saved state can go on (else none:
    /// the file is read at delivery, off the actor). Forgets the server's digest when server
    /// digests are not checked.
    func continuedDigest(of record: inout ResumeRecord, upTo length: Int64) throws(DownloadError) -> RunningDigest? {
        if !verifiesServerDigests {
            record.serverDigest = nil
        }
        if let expected = request.expectedDigest {
            // Saved at the last checkpoint: only the bytes written since are read again.
            return try RunningDigest.resuming(record.digest, expected.algorithm, fileAt: location.path, length: length)
        }
        guard let server = record.serverDigest?.digest, let saved = record.digest, saved.algorithm == server.algorithm,
            saved.length <= length
        else { return nil }
        return try RunningDigest.resuming(saved, server.algorithm, fileAt: location.path, length: length)
    }

    /// The digest the delivered file must have, and where it comes from when it is not the
    /// request's: the request's expected digest, else the one the server gave with the file's
    /// bytes (when server digests are checked).
    var digestToCheck: (digest: Digest, source: String?)? {
        if let expected = request.expectedDigest {
            return (expected, nil)
        }
        guard verifiesServerDigests, let server = recordFile?.record.resume.serverDigest else { return nil }
        return (server.digest, server.source)
    }
}
