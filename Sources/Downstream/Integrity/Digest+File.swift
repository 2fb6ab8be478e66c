import Foundation

extension Digest {
    /// The digest of the file at `url`, read in constant memory (1 MiB at a time).
    public init(_ algorithm: Algorithm, ofFileAt url: URL) throws(DownloadError) {
        var digest = RunningDigest(algorithm)
        let length = POSIXFile.length(of: url) ?? 0
        try digest.update(fromFileAt: url.path, upTo: length)
        self.init(algorithm, hex: digest.finalized().hexString)
    }
}
