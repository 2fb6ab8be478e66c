import Foundation
import Testing

@testable import Downstream

/// Whatever name a server suggests (`Content-Disposition`, the URL), the file gets a safe name:
/// one path component that every file system takes. Not empty, not hidden (no leading dot, so
/// not "." or ".."), no slash, backslash, colon or control character, at most 255 bytes of UTF-8,
/// no name Windows reserves; sanitized again, the same; numbered (beside an existing file), still
/// safe.
@Suite(Fuzzer.hangLimit)
struct FileNameFuzzTests {
    static let names = Fuzzer.Corpus(
        [
            "report.pdf", "archive.tar.gz", "../../etc/passwd", "/absolute/path/file.txt", "..", ".", "",
            "..\\..\\windows\\system.ini", ".hidden", "...dots...", "name\u{0}with\u{1}controls\u{7F}.bin",
            "a:b.txt", "CON", "com1.txt", "LPT9", "nul.tar.gz", "  spaced  ", "trailing.", "naïve café.txt",
            "日本語のファイル.zip", "\u{202E}gnp.exe", "episode-12_final.mp3", "x." + String(repeating: "e", count: 250),
            String(repeating: "a", count: 300) + ".bin", String(repeating: "é", count: 200) + ".tar",
        ],
        tokens: [".txt", ".tar.gz", "..", "../", "..\\", "CON", "com1", "nul.", "AUX", "lpt1", " ", ".", "\u{301}"])

    static let dispositions = Fuzzer.Corpus(
        [
            "attachment; filename=\"report.pdf\"", "attachment; filename*=UTF-8''na%C3%AFve.txt",
            "attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt",
            "inline; filename=plain.txt; size=3", "attachment; filename=\"q\\\"uote.txt\"",
            "attachment; filename*=iso-8859-1'en'%A3%20rates.txt", "attachment; FILENAME=\"../../etc/passwd\"",
            "attachment; filename=\"..\\\\..\\\\windows\\\\system.ini\"", "attachment; filename=\"CON.txt\"",
            "attachment; filename=\" .hidden. \"", "form-data; name=\"field\"; filename=\"a:b.txt\"",
            "attachment; filename*=UTF-8'ja'%E6%97%A5%E6%9C%AC%E8%AA%9E.zip",
            "attachment; filename=\"\u{202E}gnp.exe\"",
            "attachment; filename*=UTF-8''%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "attachment; filename*=UTF-8''a%00b.txt",
            "inline", "attachment",
        ],
        tokens: [
            "attachment", "inline", "filename=", "filename*=", "UTF-8''", "utf-8'en'", "iso-8859-1''", "; ", "\"",
            ".txt", "..", "../", "..\\", "CON", "%2F", "%00", "%C3%A9", "%E2%80%AE",
        ])

    static let urls = Fuzzer.Corpus(
        [
            "http://example.com/files/archive.tar.gz?token=1", "https://example.com/", "https://example.com",
            "https://example.com/a%2Fb.bin", "https://example.com/..%2F..%2Fetc%2Fpasswd", "http://example.com/%00.txt",
            "https://example.com/dir/", "https://example.com/na%C3%AFve.txt", "https://example.com/%E2%80%AEtxt.exe",
            "https://example.com/file.txt#fragment", "https://user:pw@example.com:8080/p/a/t/h.iso;params?q=1",
            "http://[::1]/x.bin", "https://example.com/.%2E/x", "https://example.com/CON", "https://example.com/a:b",
        ],
        tokens: ["/", "%2F", "%5C", "%00", "%2E", "..", "?", "#", "%", ";", ":", "@", "\\"])

    @Test func sanitizedNamesAreOneSafeComponent() async throws {
        let fuzz = try await Fuzzer.run(seed: 0xF11E_0A3E, rounds: 100_000) { fuzz in
            let name = fuzz.text(Self.names)
            let safe = FileName.sanitize(name)
            fuzz.expect(Self.unsafety(of: safe) == nil, Self.describe("sanitize", safe))
            fuzz.expect(FileName.sanitize(safe) == safe, Self.describe("sanitize again", FileName.sanitize(safe)))
            // One time in four: a numbered name asks the file system about the name (URL's).
            if fuzz.oneIn(4) {
                let number = 1 + fuzz.below(10_000)
                let numbered = FileName.numbered(safe, number)
                fuzz.expect(Self.unsafety(of: numbered) == nil, Self.describe("numbered \(number)", numbered))
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    @Test func suggestedNamesAreOneSafeComponent() async throws {
        let fuzz = try await Fuzzer.run(seed: 0x5_0661_E57, rounds: 100_000) { fuzz in
            let header = fuzz.text(Self.dispositions)
            let url = URL(string: fuzz.text(Self.urls))
            if let name = FileName.fromContentDisposition(header) {
                let safe = FileName.sanitize(name)
                fuzz.expect(Self.unsafety(of: safe) == nil, Self.describe("the header's name sanitized", safe))
            }
            if let url, let name = FileName.fromURL(url) {
                fuzz.expect(!name.isEmpty && name != "/", Self.describe("fromURL", name))
                let safe = FileName.sanitize(name)
                fuzz.expect(Self.unsafety(of: safe) == nil, Self.describe("the URL's name sanitized", safe))
            }
            for disposition in [header, nil] {
                let suggested = FileName.suggested(contentDisposition: disposition, url: fuzz.oneIn(8) ? nil : url)
                fuzz.expect(Self.unsafety(of: suggested) == nil, Self.describe("suggested", suggested))
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    /// What makes `name` unsafe as one file name in any directory, if anything.
    static func unsafety(of name: String) -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "empty" }
        if bytes.first == UInt8(ascii: ".") { return "hidden, or a directory's name" }
        if bytes.count > FileName.maximumByteCount { return "\(bytes.count) bytes" }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"): return "a slash"
            case UInt8(ascii: "\\"): return "a backslash"
            case UInt8(ascii: ":"): return "a colon"
            default: continue
            }
        }
        for scalar in name.unicodeScalars where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
            return "the control character U+\(String(scalar.value, radix: 16, uppercase: true))"
        }
        let stem = bytes.prefix { $0 != UInt8(ascii: ".") }
        guard stem.count == 3 || stem.count == 4 else { return nil }
        let upper = String(decoding: stem, as: UTF8.self).uppercased()
        if ["CON", "PRN", "AUX", "NUL"].contains(upper)
            || (upper.count == 4 && ["COM", "LPT"].contains(upper.prefix(3)) && ("1"..."9").contains(upper.suffix(1)))
        {
            return "reserved on Windows"
        }
        return nil
    }

    static func describe(_ what: String, _ name: String) -> String {
        "\(what) gave \"\(Fuzzer.escaped(Array(name.utf8)))\": \(unsafety(of: name) ?? "safe")"
    }
}
