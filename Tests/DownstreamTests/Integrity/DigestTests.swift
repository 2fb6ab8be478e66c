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

    static let fourBlockMessage =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"

    @Test(arguments: [
        (
            "",
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
        ),
        (
            "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
        (
            longMessage,
            "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"
        ),
        (
            fourBlockMessage,
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
        ),
        (
            millionA,
            "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"
        ),
    ])
    func sha512MatchesTheStandardsExamples(message: String, expected: String) async throws {
        for implementation in Self.implementations {
            let digest = try await onOwnThread {
                Self.digest(SHA512Compression.self, of: Array(message.utf8), implementation)
            }
            #expect(digest == expected, "\(implementation)")
        }
    }

    @Test(arguments: [
        (
            "",
            "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"
        ),
        (
            "abc",
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
        ),
        (
            fourBlockMessage,
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039"
        ),
        (
            millionA,
            "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985"
        ),
    ])
    func sha384MatchesTheStandardsExamples(message: String, expected: String) async throws {
        for implementation in Self.implementations {
            let digest = try await onOwnThread {
                Self.digest(SHA384Compression.self, of: Array(message.utf8), implementation)
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
    @Test(arguments: [0, 1, 2, 3, 4], implementations)
    func digestsAgreeWithTheSystemTools(algorithm: Int, implementation: DigestImplementation) async throws {
        let tool = try #require(Self.systemTool(for: algorithm), "no tool for digest \(algorithm) in PATH")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("digests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Seeded: the system's generator makes a system call per byte, a few seconds of a pool
        // thread per megabyte in a debug build.
        var generator = SplitMix64(seed: 0xD16E_5700 + UInt64(algorithm))
        for length in [0, 1, 55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129, 4096, 1_048_583] {
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
                case 3: Self.digest(SHA512Compression.self, of: bytes, implementation)
                case 4: Self.digest(SHA384Compression.self, of: bytes, implementation)
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
            case 3: [["sha512sum"], ["shasum", "-a", "512"]]
            case 4: [["sha384sum"], ["shasum", "-a", "384"]]
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
