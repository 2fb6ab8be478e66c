import Testing

@testable import Downstream

/// Whatever digest headers a server sends, the digests taken from them have their algorithm's
/// length, describe the whole file, and come strongest first.
@Suite(Fuzzer.hangLimit)
struct ServerDigestFuzzTests {
    static let sha256 = "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="
    static let sha1 = "Kq5sNclPz7QV2+lfQIuc6R7oRu0="
    static let md5 = "XrY7u+Ae7tCTyyK7j1rNww=="
    static let crc32 = "DUoRhQ=="
    static let sha512 = "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw=="

    /// `Repr-Digest` and `Content-Digest` (RFC 9530).
    static let structured = Fuzzer.Corpus(
        [
            "sha-256=:\(sha256):", "sha-512=:\(sha512):, sha-256=:\(sha256):", "sha=:\(sha1):, md5=:\(md5):",
            "crc32c=:\(crc32):", "sha-256=:\(sha256.dropLast()):;param=1", "md5=:\(md5):, unknown=:AAAA:",
            "sha-256=:\(sha256):,sha-256=:\(sha256):", "sha-256=::",
        ],
        tokens: ["sha-256", "sha", "md5", "crc32c", "sha-512", "=:", ":", ",", ";", "=", sha256, md5, "+", "/"])

    /// `Digest` (RFC 3230) and `x-goog-hash`.
    static let instance = Fuzzer.Corpus(
        [
            "SHA-256=\(sha256)", "sha=\(sha1),MD5=\(md5)", "crc32c=\(crc32),md5=\(md5)", "UNIXsum=30637, md5=\(md5)",
            "md5=\(md5.dropLast(2))", "sha-256=\(sha256), sha-256=\(sha256)",
        ],
        tokens: ["SHA-256=", "sha=", "MD5=", "crc32c=", ",", "=", sha256, md5, crc32])

    /// `Content-MD5` and `x-amz-checksum-*`: a bare value.
    static let bare = Fuzzer.Corpus(
        [sha256, sha1, md5, crc32, " \(md5) ", String(md5.dropLast(2)), "AAAA", ""],
        tokens: ["=", "+", "/", "==", crc32])

    static let etags = Fuzzer.Corpus(
        [
            "\"5eb63bbbe01eeed093cb22bb8f5acdc3\"", "\"5eb63bbbe01eeed093cb22bb8f5acdc3-2\"",
            "W/\"5eb63bbbe01eeed093\"",
            " \"5EB63BBBE01EEED093CB22BB8F5ACDC3\" ", "\"v1\"", "",
        ],
        tokens: ["\"", "W/", "-", "5eb63bbb", "e"])

    static let words = Fuzzer.Corpus(
        [
            "identity", "gzip", "", " Identity ", "br", "AmazonS3", "aws:kms", "AES256", "COMPOSITE", "FULL_OBJECT",
            "tx0",
        ],
        tokens: [" ", "\t", "aws:kms"])

    /// Each header that can give a digest or keep one from counting, with what it holds.
    static let headers: [(String, Fuzzer.Corpus)] = [
        ("repr-digest", structured), ("content-digest", structured), ("digest", instance), ("x-goog-hash", instance),
        ("content-md5", bare), ("x-amz-checksum-sha256", bare), ("x-amz-checksum-sha1", bare),
        ("x-amz-checksum-crc32c", bare), ("x-amz-checksum-crc32", bare), ("etag", etags), ("server", words),
        ("x-amz-request-id", words), ("content-encoding", words), ("x-goog-stored-content-encoding", words),
        ("x-amz-checksum-type", words), ("x-amz-server-side-encryption", words),
        ("x-amz-server-side-encryption-customer-algorithm", words),
    ]

    /// The headers whose digests describe the whole file on any `206`.
    static let ofTheWholeRepresentation: Set = ["Repr-Digest", "x-goog-hash", "ETag"]

    @Test func offeredDigestsHaveTheirAlgorithmsLengthAndDescribeTheWholeFile() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xD16E_5700, rounds: 100_000) { fuzz in
            let status = fuzz.pick([200, 200, 206, 206, 206, 304, 416, 500, 0])
            let isWholeFile = fuzz.oneIn(2)
            var fields: [String: String] = [:]
            for (name, corpus) in Self.headers where fuzz.oneIn(5) {
                fields[name] = fuzz.text(corpus)
            }
            let offered = ServerDigest.offered(status: status, fields: fields, isWholeFile: isWholeFile)
            func what() -> String { "status \(status), whole file \(isWholeFile): \(offered)" }
            Self.check(offered, &fuzz, what())
            let coding = fields["content-encoding"]?.trimmingWhitespace.lowercased() ?? ""
            if ![200, 206].contains(status) || !(coding.isEmpty || coding == "identity") {
                fuzz.expect(offered.isEmpty, "digests of no file, or of encoded bytes: \(what())")
            }
            if status != 200, !isWholeFile {
                fuzz.expect(
                    offered.allSatisfy { Self.ofTheWholeRepresentation.contains($0.header) },
                    "a digest of the part only: \(what())")
            }
            let strengths = offered.map { Digest.Algorithm(code: $0.algorithm).strength }
            fuzz.expect(strengths == strengths.sorted(by: >), "not strongest first: \(what())")
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    @Test func eachHeadersDigestsHaveTheirAlgorithmsLength() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xD16E_5701, rounds: 100_000) { fuzz in
            let structured = ServerDigest.structuredDigests(fuzz.text(Self.structured), header: "Repr-Digest")
            Self.check(structured, &fuzz, "structured: \(structured)")
            fuzz.expect(structured.allSatisfy { $0.header == "Repr-Digest" }, "structured: \(structured)")
            let instance = ServerDigest.instanceDigests(fuzz.text(Self.instance), header: "Digest")
            Self.check(instance, &fuzz, "instance: \(instance)")
            fuzz.expect(instance.allSatisfy { $0.header == "Digest" }, "instance: \(instance)")
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    /// Every digest is its algorithm's number of bytes, in lowercase hexadecimal.
    static func check(_ digests: [ServerDigest], _ fuzz: inout Fuzzer, _ what: @autoclosure () -> String) {
        for digest in digests {
            let algorithm = Digest.Algorithm(code: digest.algorithm)
            fuzz.expect(
                [UInt8](hex: digest.hex)?.count == algorithm.byteCount && digest.hex == digest.hex.lowercased()
                    && digest.digest.problem == nil,
                "\(digest.hex) is no \(algorithm) digest: \(what())")
        }
    }
}
