import Foundation

/// A public key as the DER SubjectPublicKeyInfo (RFC 5280) that a ``PublicKeyPin`` is the digest
/// of, built from the bare key Apple's `SecKeyCopyExternalRepresentation` gives: PKCS#1
/// `RSAPublicKey` for RSA, the uncompressed X9.63 point for elliptic curves.
enum SubjectPublicKeyInfo {
    /// A key's algorithm, as `kSecAttrKeyType` says it.
    enum Algorithm: Sendable {
        case rsa
        case ellipticCurve
    }

    /// The DER SubjectPublicKeyInfo of `key`; nil for an elliptic curve of a size other than
    /// P-256, P-384 and P-521 (the curves TLS certificates use).
    static func der(_ algorithm: Algorithm, sizeInBits: Int, key: [UInt8]) -> [UInt8]? {
        let identifier: [UInt8]
        switch algorithm {
        case .rsa:
            // rsaEncryption (1.2.840.113549.1.1.1), parameters NULL.
            identifier = DER.sequence(
                DER.objectIdentifier([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]) + [0x05, 0x00])
        case .ellipticCurve:
            let curves: [Int: [UInt8]] = [
                256: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07],  // prime256v1, 1.2.840.10045.3.1.7
                384: [0x2B, 0x81, 0x04, 0x00, 0x22],  // secp384r1, 1.3.132.0.34
                521: [0x2B, 0x81, 0x04, 0x00, 0x23],  // secp521r1, 1.3.132.0.35
            ]
            guard let curve = curves[sizeInBits] else { return nil }
            // id-ecPublicKey (1.2.840.10045.2.1), parameters the named curve.
            identifier = DER.sequence(
                DER.objectIdentifier([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]) + DER.objectIdentifier(curve))
        }
        // The key is a BIT STRING with no unused bits.
        return DER.sequence(identifier + DER.element(tag: 0x03, [0x00] + key))
    }

    /// The few DER encodings a SubjectPublicKeyInfo needs.
    private enum DER {
        static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            [tag] + length(content.count) + content
        }

        static func sequence(_ content: [UInt8]) -> [UInt8] { element(tag: 0x30, content) }

        static func objectIdentifier(_ encoded: [UInt8]) -> [UInt8] { element(tag: 0x06, encoded) }

        /// Short form below 128, else the long form: 0x80 + the count of big-endian length bytes.
        static func length(_ count: Int) -> [UInt8] {
            guard count >= 0x80 else { return [UInt8(count)] }
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            return [0x80 | UInt8(bytes.count)] + bytes
        }
    }
}

extension PublicKeyPin {
    /// The pin of the key whose DER SubjectPublicKeyInfo is `der`.
    init(subjectPublicKeyInfo der: [UInt8]) {
        var digest = RunningDigest(.sha256)
        der.withUnsafeBytes { digest.update($0) }
        // 32 bytes of base64 are always a pin.
        self.init(sha256Base64: Data(digest.finalized()).base64EncodedString())!
    }
}

extension Certificate {
    /// The certificates in DER, one per PEM block (or the one DER certificate); a typed error
    /// when they cannot be read.
    func derCertificates() throws(DownloadError) -> [Data] {
        let pem = try pem()
        var certificates: [Data] = []
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var rest = Substring(pem)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex)
        {
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw .invalidRequest("a PEM certificate is not base64")
            }
            certificates.append(der)
            rest = rest[stop.upperBound...]
        }
        return certificates
    }
}
