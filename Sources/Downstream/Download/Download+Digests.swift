import Foundation

extension Download {
    /// The digest the delivered file must have, and where it comes from when it is not the
    /// request's: the request's expected digest, else the one the server gave with the file's
    /// bytes (when server digests are checked).
    var digestToCheck: (digest: Digest, source: String?)? {
        if let expected = request.expectedDigest {
            return (expected, nil)
        }
        guard settings.engine.transfer.verifiesServerDigests, let server = recordFile?.resume.serverDigest
        else { return nil }
        return (server.digest, server.source)
    }
}
