import Foundation

extension Digest {
    /// The digest of `bytes` (DownstreamTesting's server checks HTTP Digest answers with it).
    @_spi(Testing) public init(_ algorithm: Algorithm, of bytes: [UInt8]) {
        var digest = RunningDigest(algorithm)
        bytes.withUnsafeBytes { digest.update($0) }
        self.init(algorithm, hex: digest.finalized().hexString)
    }
}
