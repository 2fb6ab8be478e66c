import CCurl
@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// The platform's digests (libcrypto's block functions on Linux, CommonCrypto on Apple platforms,
/// the CPU's CRC-32C instruction, zlib's CRC-32) and Downstream's Swift code keep the same state:
/// a digest saved by one goes on in the other, so a record written before the platform's code was
/// used, or on a machine without it, still resumes. Hashing runs on a thread of its own.
struct DigestImplementationTests {
    static let algorithms: [Digest.Algorithm] = [.sha512, .sha384, .sha256, .sha1, .md5, .crc32c, .crc32]

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// A state saved after any number of bytes, by either implementation, is the same text, and
    /// the other implementation goes on from it to the digest of the whole.
    @Test(arguments: algorithms)
    func eachImplementationGoesOnFromTheOthersSavedState(_ algorithm: Digest.Algorithm) async throws {
        let message = Self.randomBytes(70_001, seed: 0xD16E + UInt64(algorithm.byteCount))
        let problems = try await onOwnThread {
            var problems: [String] = []
            var whole = RunningDigest(algorithm, implementation: .swift)
            message.withUnsafeBytes { whole.update($0) }
            for cut in [0, 1, 55, 63, 64, 65, 111, 127, 128, 129, 4096, 65_537, 70_001] {
                for (first, second) in [
                    (DigestImplementation.platform, DigestImplementation.swift), (.swift, .platform),
                ] {
                    var digest = RunningDigest(algorithm, implementation: first)
                    message[..<cut].withUnsafeBytes { digest.update($0) }
                    var other = RunningDigest(algorithm, implementation: second)
                    message[..<cut].withUnsafeBytes { other.update($0) }
                    if digest.serialized != other.serialized {
                        problems.append(
                            "\(cut) bytes: \(first) saved \(digest.serialized), \(second) \(other.serialized)")
                    }
                    guard var restored = RunningDigest(serialized: digest.serialized, implementation: second) else {
                        problems.append("\(cut) bytes: \(digest.serialized) does not restore")
                        continue
                    }
                    message[cut...].withUnsafeBytes { restored.update($0) }
                    if restored.finalized() != whole.finalized() {
                        problems.append("\(cut) bytes: \(first) then \(second) differs from the whole")
                    }
                }
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A state in the records' format since the first version (`algorithm:length:words:pending`,
    /// here SHA-256 after 64 bytes of "a", written by the Swift code) goes on in each.
    @Test func aStateSavedBeforeThePlatformsCodeGoesOn() throws {
        let saved = "sha256:64:df5bb81ce81e0626fb45a8944fd40f31b25e6816d6d499c1ab90492900635e66:"
        for implementation in DigestTests.implementations {
            var digest = try #require(RunningDigest(serialized: saved, implementation: implementation))
            #expect(digest.serialized == saved)
            Array("bc".utf8).withUnsafeBytes { digest.update($0) }
            // Python's hashlib.sha256(b"a" * 64 + b"bc").
            #expect(
                digest.finalized().hexString == "2eac2ab13a13bd7eb0771ce0647c9cdddb62d4a1bebdd1829780810962280a84",
                "\(implementation)")
        }
    }

    /// The CRCs' check values ("123456789") and random lengths agree between the implementations.
    @Test(arguments: [Digest.Algorithm.crc32c, .crc32])
    func theCRCsAgree(_ algorithm: Digest.Algorithm) async throws {
        let check = Array("123456789".utf8)
        let expected: UInt32 = algorithm == .crc32c ? 0xE306_9283 : 0xCBF4_3926
        let message = Self.randomBytes(100_003, seed: 0xC3C)
        let problems = try await onOwnThread {
            var problems: [String] = []
            for implementation in DigestTests.implementations {
                let crc = check.withUnsafeBytes { bytes in
                    algorithm == .crc32c
                        ? CRC32C.checksum(bytes, continuing: 0, implementation: implementation)
                        : CRC32.checksum(bytes, continuing: 0, implementation: implementation)
                }
                if crc != expected { problems.append("\(implementation): check value \(crc)") }
            }
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 4095, 100_003] {
                let values = DigestTests.implementations.map { implementation in
                    var digest = RunningDigest(algorithm, implementation: implementation)
                    message[..<length].withUnsafeBytes { digest.update($0) }
                    return digest.finalized()
                }
                if Set(values).count != 1 { problems.append("\(length) bytes: \(values)") }
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A manager tells its monitors once when it computes digests in Swift (here forced by
    /// `DOWNSTREAM_DIGESTS=swift`), and not when the platform's code is there; the file is checked
    /// against its SHA-256 either way.
    @Test(arguments: [nil, "swift"])
    func theMonitorsAreToldOnceWhenDigestsAreComputedInSwift(_ setting: String?) async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let body = Body.pattern(count: 300_000, seed: 4201)
        server.setRoute("/file.bin", Route(body: body))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("digests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")

        var environment = ProcessInfo.processInfo.environment
        environment["DOWNSTREAM_DIGESTS"] = setting
        let (status, output) = try await ChildProcess.run(
            try ChildProcess.executable("DownstreamTestClient"),
            [
                "single", server.url("/file.bin").absoluteString, destination.path,
                "--sha256", ExpectedDigestTests.digest(.sha256, of: body).hexValue,
            ], environment: environment)

        #expect(status == 0, "\(output)")
        let told = output.split(separator: "\n").filter { $0.hasPrefix("digests in Swift: ") }
        var error = [CChar](repeating: 0, count: 256)
        let platformLoads = ds_hashes_load(&error, error.count) == 1
        if setting == "swift" {
            #expect(told == ["digests in Swift: DOWNSTREAM_DIGESTS=swift"], "\(output)")
        } else {
            #expect(told.count == (platformLoads ? 0 : 1), "\(output)")
        }
        try body.expectMatches(destination)
    }
}
