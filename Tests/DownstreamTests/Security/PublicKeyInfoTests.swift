@testable import Downstream
import Foundation
import Testing

/// The pure half of the Apple trust check, tested here against OpenSSL: a bare key (what
/// `SecKeyCopyExternalRepresentation` gives) rebuilt into the SubjectPublicKeyInfo curl pins, PEM
/// bundles read into DER certificates (what `SecCertificateCreateWithData` takes), and the
/// verdict of a rule.
@Suite(.timeLimit(.minutes(1)))
struct PublicKeyInfoTests {
    static let keys: [(algorithm: SubjectPublicKeyInfo.Algorithm, bits: Int, generate: [String])] = [
        (.rsa, 2048, ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
        (.ellipticCurve, 256, ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
        (.ellipticCurve, 384, ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
        (.ellipticCurve, 521, ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"]),
    ]

    @Test(.enabled(if: TLSServer.isAvailable, "the openssl command is not installed"), arguments: 0..<keys.count)
    func aBareKeyBecomesTheSubjectPublicKeyInfoOpenSSLWritesAndItsPin(_ index: Int) async throws {
        let key = Self.keys[index]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TLSServer.run(["genpkey"] + key.generate + ["-out", "key.pem"], in: directory)
        try await TLSServer.run(
            ["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "spki.der"], in: directory)
        let expected = [UInt8](try Data(contentsOf: directory.appendingPathComponent("spki.der")))
        let bare: [UInt8]
        switch key.algorithm {
        case .rsa:
            // PKCS#1 RSAPublicKey, as Security gives an RSA key.
            try await TLSServer.run(
                ["rsa", "-in", "key.pem", "-RSAPublicKey_out", "-outform", "DER", "-out", "bare.der"], in: directory)
            bare = [UInt8](try Data(contentsOf: directory.appendingPathComponent("bare.der")))
        case .ellipticCurve:
            // The uncompressed point 04 || X || Y ends the SubjectPublicKeyInfo.
            bare = Array(expected.suffix(1 + 2 * ((key.bits + 7) / 8)))
            #expect(bare.first == 0x04)
        }
        let built = try #require(SubjectPublicKeyInfo.der(key.algorithm, sizeInBits: key.bits, key: bare))
        #expect(built == expected)
        let digest = try await TLSServer.output(["dgst", "-sha256", "-binary", "spki.der"], in: directory)
        #expect(PublicKeyPin(subjectPublicKeyInfo: built).base64 == digest.base64EncodedString())
    }

    @Test func aCurveTLSDoesNotUseHasNoSubjectPublicKeyInfo() {
        #expect(SubjectPublicKeyInfo.der(.ellipticCurve, sizeInBits: 224, key: [0x04]) == nil)
    }

    @Test(.enabled(if: TLSServer.isAvailable, "the openssl command is not installed"))
    func aPEMBundleIsReadIntoEachOfItsCertificatesAsDER() async throws {
        let server = try await TLSServer.start(files: [:])
        defer { server.stop() }
        try await TLSServer.run(
            ["x509", "-in", "server.pem", "-outform", "der", "-out", "server.der"], in: server.directory)
        let serverDER = try Data(contentsOf: server.directory.appendingPathComponent("server.der"))
        let authorityDER = try await server.authorityDER()
        let bundle = try Data(contentsOf: server.authority) + Data("\n".utf8) + Data(contentsOf: server.certificate)
        #expect(try Certificate.data(bundle).derCertificates() == [authorityDER, serverDER])
        #expect(try Certificate.data(authorityDER).derCertificates() == [authorityDER])
        #expect(throws: DownloadError.self) { try Certificate.data(Data("neither".utf8)).derCertificates() }
    }

    @Test func aRuleTrustsAChainItsAuthoritiesVouchForWhoseKeyHasAPin() throws {
        let pin = try #require(PublicKeyPin(sha256Base64: Data(repeating: 1, count: 32).base64EncodedString()))
        let other = try #require(PublicKeyPin(sha256Base64: Data(repeating: 2, count: 32).base64EncodedString()))
        let plain = TrustRule(host: "example.com")
        let pinned = TrustRule(host: "example.com", publicKeyPins: [other, pin])
        let any = TrustRule.acceptingAnyCertificate(forHost: "example.com")
        let cases: [(TrustRule, String?, PublicKeyPin?, String?)] = [
            (plain, nil, nil, nil),
            (plain, "expired", pin, "the certificate of example.com is not trusted: expired (rule for example.com)"),
            (pinned, nil, pin, nil),
            (pinned, nil, other, nil),
            (pinned, "expired", pin, "is not trusted: expired (rule for example.com (2 pins))"),
            (
                TrustRule(host: "example.com", publicKeyPins: [other]), nil, pin,
                "matches no pin (rule for example.com (1 pin))"
            ),
            (pinned, nil, nil, "cannot be read to check its pins"),
            (any, "expired", nil, nil),
        ]
        for (rule, chainFailure, leafPin, refusal) in cases {
            let verdict = rule.verdict(host: "example.com", chainFailure: chainFailure, leafPin: leafPin)
            switch (verdict, refusal) {
            case (.trusted, nil): break
            case (.refused(let reason), let expected?): #expect(reason.contains(expected), "\(reason)")
            default: Issue.record("\(rule.summary), \(chainFailure ?? "trusted chain"): \(verdict)")
            }
        }
    }
}
