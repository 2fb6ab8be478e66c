import Foundation

extension Digest {
    /// The digest of `bytes`, computed here: to compare with a digest you were given, or to key
    /// something by a value you do not keep (`dl` keys the files it saved by their URLs' SHA-256).
    public init(_ algorithm: Algorithm, of bytes: [UInt8]) {
        var digest = RunningDigest(algorithm)
        bytes.withUnsafeBytes { digest.update($0) }
        self.init(algorithm, hex: digest.finalized().hexString)
    }
}
