@testable import Downstream
import Foundation
import Testing
import DownstreamTesting

/// The digests against the examples of their standards (FIPS 180-4's SHA examples, RFC 1321's
/// test suite) and against the system's `sha256sum`, `sha1sum` and `md5sum` on random files, each
/// computed by the platform's code (libcrypto on Linux, CommonCrypto on Apple platforms) and by
/// Downstream's Swift code. The hashing runs on a thread of its own: in a debug build the Swift
/// code takes a second for a few megabytes.
struct DigestTests {
    static let implementations: [DigestImplementation] = [.platform, .swift]

    static let longMessage = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    static let millionA = String(repeating: "a", count: 1_000_000)

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (longMessage, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (millionA, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ])
    func sha256MatchesTheStandardsExamples(message: String, expected: String) async throws {
        for implementation in Self.implementations {
            let digest = try await onOwnThread {
                Self.digest(SHA256Compression.self, of: Array(message.utf8), implementation)
            }
            #expect(digest == expected, "\(implementation)")
        }
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (longMessage, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (millionA, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
    ])
    func sha1MatchesTheStandardsExamples(message: String, expected: String) async throws {
        for implementation in Self.implementations {
            let digest = try await onOwnThread {
                Self.digest(SHA1Compression.self, of: Array(message.utf8), implementation)
            }
            #expect(digest == expected, "\(implementation)")
        }
    }

    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func md5MatchesRFC1321(message: String, expected: String) async throws {
        for implementation in Self.implementations {
            let digest = try await onOwnThread {
                Self.digest(MD5Compression.self, of: Array(message.utf8), implementation)
            }
            #expect(digest == expected, "\(implementation)")
        }
    }

    /// Pieces of every size around the block size give the digest of the whole.
    @Test(arguments: implementations)
    func theDigestDoesNotDependOnHowTheBytesArrive(_ implementation: DigestImplementation) {
        var generator = SystemRandomNumberGenerator()
        let message = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = Self.digest(SHA256Compression.self, of: message, .swift)
        for pieceSize in [1, 3, 55, 56, 63, 64, 65, 127, 128, 999] {
            var hasher = BlockHasher<SHA256Compression>(implementation: implementation)
            var start = 0
            while start < message.count {
                let end = min(start + pieceSize, message.count)
                hasher.update(message[start..<end])
                start = end
            }
            #expect(hasher.finalized().hexString == whole, "pieces of \(pieceSize)")
            #expect(hasher.length == UInt64(message.count))
        }
    }

    /// Lengths around the padding boundary (55, 56 and 64 bytes), and larger random files, agree
    /// with the system's tools.
    @Test(arguments: [0, 1, 2], implementations)
    func digestsAgreeWithTheSystemTools(algorithm: Int, implementation: DigestImplementation) async throws {
        let tool = try #require(Self.systemTool(for: algorithm), "no tool for digest \(algorithm) in PATH")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("digests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Seeded: the system's generator makes a system call per byte, a few seconds of a pool
        // thread per megabyte in a debug build.
        var generator = SplitMix64(seed: 0xD16E_5700 + UInt64(algorithm))
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 4096, 1_048_583] {
            var bytes = [UInt8](repeating: 0, count: length)
            bytes.withUnsafeMutableBytes { buffer in
                for offset in stride(from: 0, to: length, by: 8) {
                    withUnsafeBytes(of: generator.next()) { word in
                        buffer[offset..<min(offset + 8, length)].copyBytes(from: word.prefix(length - offset))
                    }
                }
            }
            let file = directory.appendingPathComponent("\(length).bin", isDirectory: false)
            try Data(bytes).writeWithoutSync(to: file)
            let ours = try await onOwnThread { [bytes] in
                switch algorithm {
                case 0: Self.digest(SHA256Compression.self, of: bytes, implementation)
                case 1: Self.digest(SHA1Compression.self, of: bytes, implementation)
                default: Self.digest(MD5Compression.self, of: bytes, implementation)
                }
            }
            #expect(try await Self.run(tool, file) == ours, "\(tool), \(length) bytes")
        }
    }

    static func digest<C: BlockCompression>(
        _: C.Type, of bytes: [UInt8], _ implementation: DigestImplementation
    ) -> String {
        var hasher = BlockHasher<C>(implementation: implementation)
        hasher.update(bytes)
        return hasher.finalized().hexString
    }

    /// The command that prints the digest of a file first on its line: coreutils' on Linux,
    /// `shasum` and `md5` on macOS.
    static func systemTool(for algorithm: Int) -> [String]? {
        let candidates: [[String]] =
            switch algorithm {
            case 0: [["sha256sum"], ["shasum", "-a", "256"]]
            case 1: [["sha1sum"], ["shasum", "-a", "1"]]
            default: [["md5sum"], ["md5", "-r"]]
            }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return candidates.first { command in
            path.split(separator: ":").contains { directory in
                FileManager.default.isExecutableFile(atPath: "\(directory)/\(command[0])")
            }
        }
    }

    /// The hexadecimal digest that `tool` prints for `file`.
    static func run(_ tool: [String], _ file: URL) async throws -> String {
        let (_, output) = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), tool + [file.path])
        return output.split(separator: " ").first.map(String.init) ?? ""
    }
}
