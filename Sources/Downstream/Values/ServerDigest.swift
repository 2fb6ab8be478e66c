import Foundation

/// A digest of the whole file that a server gave in a response's headers, and the header it came
/// in: what a download without an expected digest checks its file against (see
/// `DownloadManager.Configuration.Integrity`).
///
/// Kept in the download's record with the bytes it describes, so that a download continued after
/// a pause or a relaunch still checks it.
struct ServerDigest: Codable, Equatable, Sendable {
    /// The algorithm's stored name (``Digest/Algorithm/Code``).
    var algorithm: Digest.Algorithm.Code
    /// The value as lowercase hexadecimal digits.
    var hex: String
    /// The header that gave it, as it is written in words: `Repr-Digest`, `ETag`.
    var header: String

    init(_ algorithm: Digest.Algorithm, bytes: [UInt8], header: String) {
        self.algorithm = algorithm.code
        hex = bytes.hexString
        self.header = header
    }

    /// The digest to compare the file with.
    var digest: Digest { Digest(Digest.Algorithm(code: algorithm), hex: hex) }

    /// Where the value comes from, for errors: "the server's Repr-Digest".
    var source: String { "the server's \(header)" }
}

extension ServerDigest {
    /// The digests of the whole file that a response with `status` and `fields` (header names
    /// lowercased) gives, strongest algorithm first (SHA-512, SHA-384, SHA-256, SHA-1, MD5,
    /// CRC-32C, CRC-32), and for one algorithm in the order of the headers below; empty when it
    /// gives none that can be trusted. `isWholeFile`: a `206` whose `Content-Range` is the whole
    /// file (`bytes 0-99/100`).
    ///
    /// Which headers describe the whole file depends on what the body is:
    ///
    /// - On `200` and `206`: `Repr-Digest` (RFC 9530, the selected representation), `x-goog-hash`
    ///   (Google Cloud Storage gives the whole object's hashes for a range too) and a single-part
    ///   S3 `ETag` (the object's MD5; an entity tag is of the whole representation).
    /// - On `200`, and on a `206` whose range is the whole file: `Content-Digest` (RFC 9530) and
    ///   `Content-MD5`, which describe the message's content (on another `206`, its part);
    ///   `Digest` (RFC 3230), whose "instance" is the whole file, but which servers computed
    ///   over a range's part as well; `x-amz-checksum-*` (S3 sends none for a range).
    /// - Never on a body with a `Content-Encoding` other than `identity` (the digests are of the
    ///   encoded bytes), nor on other statuses.
    ///
    /// Unknown algorithms are skipped; a header that cannot be read is ignored as a whole.
    static func offered(status: Int, fields: [String: String], isWholeFile: Bool = false) -> [ServerDigest] {
        guard status == 200 || status == 206 else { return [] }
        if let coding = fields["content-encoding"]?.trimmingWhitespace.lowercased(),
            !coding.isEmpty, coding != "identity"
        {
            return []
        }
        let isWhole = status == 200 || isWholeFile
        var offered: [ServerDigest] = []
        offered += structuredDigests(fields["repr-digest"], header: "Repr-Digest")
        if isWhole {
            offered += structuredDigests(fields["content-digest"], header: "Content-Digest")
            offered += instanceDigests(fields["digest"], header: "Digest")
            offered += amazonChecksums(fields)
        }
        offered += googleHashes(fields)
        if isWhole, let md5 = fields["content-md5"].flatMap({ base64($0, of: .md5) }) {
            offered.append(ServerDigest(.md5, bytes: md5, header: "Content-MD5"))
        }
        offered += amazonETag(fields)
        // Stable: for one algorithm, the order of the headers above.
        return offered.enumerated().sorted { a, b in
            let (strengthA, strengthB) = (a.element.strength, b.element.strength)
            return strengthA != strengthB ? strengthA > strengthB : a.offset < b.offset
        }.map(\.element)
    }

    private var strength: Int { Digest.Algorithm(code: algorithm).strength }
}

extension ServerDigest {
    /// The algorithms of RFC 9530's registry that can be checked, by key.
    private static let structuredNames: [String: Digest.Algorithm] = [
        "sha-512": .sha512, "sha-384": .sha384, "sha-256": .sha256, "sha": .sha1, "md5": .md5, "crc32c": .crc32c,
    ]

    /// The algorithms of RFC 3230's registry and Google's `x-goog-hash`, by lowercased name.
    private static let instanceNames: [String: Digest.Algorithm] = [
        "sha-512": .sha512, "sha-384": .sha384, "sha-256": .sha256, "sha": .sha1, "md5": .md5, "crc32c": .crc32c,
    ]

    /// `Repr-Digest` and `Content-Digest`: a structured-field dictionary of byte sequences,
    /// `sha-256=:BASE64:, sha-512=:BASE64:` (RFC 9530, RFC 9651).
    static func structuredDigests(_ value: String?, header: String) -> [ServerDigest] {
        guard let value else { return [] }
        var digests: [ServerDigest] = []
        for member in value.split(separator: ",", omittingEmptySubsequences: false) {
            let member = member.trimmingWhitespace
            guard let equals = member.firstIndex(of: "=") else { return [] }
            let key = member[..<equals]
            var item = member[member.index(after: equals)...]
            // Parameters after the byte sequence (`;name=value`) do not change its meaning.
            guard key.allSatisfy(isKeyCharacter), key.first?.isLowercase == true, item.first == ":",
                let close = item.dropFirst().firstIndex(of: ":")
            else { return [] }
            let rest = item[item.index(after: close)...]
            guard rest.isEmpty || rest.first == ";" else { return [] }
            item = item[item.index(after: item.startIndex)..<close]
            guard let algorithm = structuredNames[String(key)] else { continue }
            guard let bytes = base64(item, of: algorithm) else { return [] }
            digests.append(ServerDigest(algorithm, bytes: bytes, header: header))
        }
        return digests
    }

    /// `Digest` (RFC 3230) and `x-goog-hash`: `name=BASE64` pairs separated by commas, names
    /// without regard to case.
    static func instanceDigests(_ value: String?, header: String) -> [ServerDigest] {
        guard let value else { return [] }
        var digests: [ServerDigest] = []
        for member in value.split(separator: ",") {
            let member = member.trimmingWhitespace
            guard let equals = member.firstIndex(of: "=") else { return [] }
            guard let algorithm = instanceNames[member[..<equals].lowercased()] else { continue }
            guard let bytes = base64(member[member.index(after: equals)...], of: algorithm) else { return [] }
            digests.append(ServerDigest(algorithm, bytes: bytes, header: header))
        }
        return digests
    }

    /// `x-goog-hash: crc32c=…,md5=…` (Google Cloud Storage: the whole object's, for a range
    /// too); not for an object stored compressed and served decoded (`x-goog-stored-content-encoding`),
    /// whose hashes are of the stored bytes.
    private static func googleHashes(_ fields: [String: String]) -> [ServerDigest] {
        if let stored = fields["x-goog-stored-content-encoding"]?.trimmingWhitespace.lowercased(),
            !stored.isEmpty, stored != "identity"
        {
            return []
        }
        return instanceDigests(fields["x-goog-hash"], header: "x-goog-hash")
    }

    /// `x-amz-checksum-sha256`, `-sha1`, `-crc32c`, `-crc32` (S3, for a whole object); not a
    /// checksum of checksums of the parts of a multipart upload (`-N` after the value, or
    /// `x-amz-checksum-type: COMPOSITE`).
    private static func amazonChecksums(_ fields: [String: String]) -> [ServerDigest] {
        if fields["x-amz-checksum-type"]?.trimmingWhitespace.uppercased() == "COMPOSITE" { return [] }
        return amazonChecksumHeaders.compactMap { header, algorithm in
            guard let bytes = fields[header].flatMap({ base64($0, of: algorithm) }) else { return nil }
            return ServerDigest(algorithm, bytes: bytes, header: header)
        }
    }

    /// Made once: every response is looked at for them.
    private static let amazonChecksumHeaders: [(String, Digest.Algorithm)] = [
        ("x-amz-checksum-sha256", .sha256), ("x-amz-checksum-sha1", .sha1), ("x-amz-checksum-crc32c", .crc32c),
        ("x-amz-checksum-crc32", .crc32),
    ]

    /// The `ETag` of an S3 response (`x-amz-request-id`, or `Server: AmazonS3`) when it is the
    /// object's MD5: 32 hexadecimal digits in quotes (a multipart upload's has `-N`), and the object
    /// is not encrypted with KMS or a key of the customer's (then it is not the MD5).
    private static func amazonETag(_ fields: [String: String]) -> [ServerDigest] {
        let server = fields["server"]?.trimmingWhitespace.lowercased()
        guard fields["x-amz-request-id"] != nil || server == "amazons3",
            fields["x-amz-server-side-encryption-customer-algorithm"] == nil,
            fields["x-amz-server-side-encryption"]?.trimmingWhitespace.lowercased().hasPrefix("aws:kms") != true,
            let etag = fields["etag"]?.trimmingWhitespace, etag.count == 34, etag.first == "\"",
            etag.last == "\"", let bytes = [UInt8](hex: etag.dropFirst().dropLast())
        else { return [] }
        return [ServerDigest(.md5, bytes: bytes, header: "ETag")]
    }

    /// The bytes of `text` in base64 when they are a digest of `algorithm`.
    private static func base64(_ text: some StringProtocol, of algorithm: Digest.Algorithm) -> [UInt8]? {
        var text = String(text.trimmingWhitespace)
        // Padding is optional in a structured field's byte sequence.
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: text), data.count == algorithm.byteCount else { return nil }
        return [UInt8](data)
    }

    /// Whether `character` may be in a structured-field key (RFC 9651: lowercase letters, digits,
    /// `_`, `-`, `.`, `*`).
    private static func isKeyCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLowercase || character.isNumber || "_-.*".contains(character))
    }
}
