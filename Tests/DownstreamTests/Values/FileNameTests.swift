import Foundation
import Testing

@testable import Downstream

@Suite struct FileNameTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("/absolute/path/file.txt", "file.txt"),
        ("..\\..\\windows\\system.ini", "system.ini"),
        ("..", "download"),
        (".", "download"),
        ("", "download"),
        (".hidden", "hidden"),
        ("...dots...", "dots"),
        (".\u{301}hidden", "\u{301}hidden"),
        ("name\u{0}with\u{1}controls\u{7F}.bin", "namewithcontrols.bin"),
        ("line\nbreak.txt", "linebreak.txt"),
        ("a:b.txt", "a_b.txt"),
        ("CON", "_CON"),
        ("com1.txt", "_com1.txt"),
        ("com1.\u{301}txt", "_com1.\u{301}txt"),
        ("  spaced  ", "spaced"),
        ("trailing.", "trailing"),
        // Plain ASCII, the common case, is still bounded.
        (String(repeating: "a", count: 300) + ".bin", String(repeating: "a", count: 251) + ".bin"),
        ("episode-12_final.mp3", "episode-12_final.mp3"),
        // A separator in one character with a mark after it, or a prepended one before it.
        ("x/\u{301}y.txt", "\u{301}y.txt"),
        ("x\\\u{301}y.txt", "\u{301}y.txt"),
        ("dir\u{600}/../\u{301}passwd", "\u{301}passwd"),
        ("\u{600}/etc/passwd", "passwd"),
    ])
    func sanitizes(_ input: String, _ expected: String) {
        #expect(FileName.sanitize(input) == expected)
    }

    @Test(arguments: [
        // A right-to-left override: displays as "invoiceexe.pdf".
        ("invoice\u{202E}fdp.exe", "invoicefdp.exe"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}a\u{2066}\u{2067}\u{2068}\u{2069}.txt", "a.txt"),
        ("left\u{200E}right\u{200F}mark\u{061C}.txt", "leftrightmark.txt"),
        ("zero\u{200B}width\u{2060}\u{FEFF}\u{00AD}.txt", "zerowidth.txt"),
        ("line\u{2028}para\u{2029}.txt", "linepara.txt"),
        // Letters of every script stay.
        ("данные-日本語-ملف.zip", "данные-日本語-ملف.zip"),
    ])
    func namesDisplayAsTheyAre(_ input: String, _ expected: String) {
        #expect(FileName.sanitize(input) == expected)
    }

    @Test func everyDerivedNameIsSafe() throws {
        let disposition = "attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe"
        #expect(FileName.suggested(contentDisposition: disposition, url: nil) == "invoicefdp.exe")
        let url = try #require(URL(string: "https://example.com/files/invoice%E2%80%AEfdp.exe"))
        #expect(FileName.suggested(contentDisposition: nil, url: url) == "invoicefdp.exe")
        #expect(Destination.fileName(for: url) == "invoicefdp.exe")
        let long = try #require(URL(string: "https://example.com/" + String(repeating: "n", count: 300) + ".iso"))
        #expect(Destination.fileName(for: long) == String(repeating: "n", count: 251) + ".iso")
    }

    @Test func boundsTheLengthAndKeepsTheExtension() {
        let long = String(repeating: "é", count: 300) + ".tar"
        let safe = FileName.sanitize(long)
        #expect(safe.utf8.count <= 255)
        #expect(safe.hasSuffix(".tar"))
        #expect(safe.hasPrefix("éé"))
    }

    /// A name cut to the limit does not end in the dots or spaces before the cut.
    @Test func aCutNameDoesNotEndInDotsOrSpaces() {
        let plain = String(repeating: "a", count: 253) + ".." + String(repeating: "b", count: 20)
        #expect(FileName.sanitize(plain) == String(repeating: "a", count: 253))
        let spaced = "é" + String(repeating: "a", count: 250) + " . " + String(repeating: "b", count: 30)
        #expect(FileName.sanitize(spaced) == "é" + String(repeating: "a", count: 250))
    }

    /// A name that is one character longer than the limit (a letter under hundreds of
    /// combining marks) is cut between its scalars, where it was cut to nothing.
    @Test func cutsACharacterLongerThanTheLimit() {
        let marks = String(repeating: "\u{301}", count: 300)
        #expect(FileName.sanitize("a" + marks) == "a" + String(repeating: "\u{301}", count: 127))
        #expect(FileName.sanitize("a" + marks + ".txt") == "a" + String(repeating: "\u{301}", count: 125) + ".txt")
        #expect(FileName.truncated("a" + marks, limit: 10) == "a" + String(repeating: "\u{301}", count: 4))
    }

    @Test func readsFilenameFromContentDisposition() {
        #expect(FileName.fromContentDisposition("attachment; filename=\"a b.zip\"") == "a b.zip")
        #expect(FileName.fromContentDisposition("attachment; filename=plain.txt; size=3") == "plain.txt")
        #expect(FileName.fromContentDisposition("attachment; filename=\"q\\\"uote.txt\"") == "q\"uote.txt")
        #expect(FileName.fromContentDisposition("inline") == nil)
    }

    @Test func prefersTheExtendedFilename() {
        let header = "attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt"
        #expect(FileName.fromContentDisposition(header) == "€ rates.txt")
    }

    @Test func anExtendedFilenameThatIsNotUTF8GivesWayToThePlainOne() {
        for invalid in ["%FF%FE.txt", "%E2%82.txt", "%C0%AF.txt", "%ED%A0%80.txt"] {
            let header = "attachment; filename=\"fallback.txt\"; filename*=UTF-8''\(invalid)"
            #expect(FileName.fromContentDisposition(header) == "fallback.txt", "\(invalid)")
        }
    }

    @Test func suggestsFromTheHeaderThenTheURL() throws {
        let url = try #require(URL(string: "http://example.com/files/archive.tar.gz?token=1"))
        #expect(FileName.suggested(contentDisposition: "attachment; filename=\"../x.bin\"", url: url) == "x.bin")
        #expect(FileName.suggested(contentDisposition: nil, url: url) == "archive.tar.gz")
        #expect(FileName.suggested(contentDisposition: "attachment; filename=\"..\"", url: url) == "archive.tar.gz")
        let root = try #require(URL(string: "http://example.com/"))
        #expect(FileName.suggested(contentDisposition: nil, url: root) == "download")
    }

    @Test func numbersNamesForUniqueness() {
        #expect(FileName.numbered("movie.mp4", 2) == "movie (2).mp4")
        #expect(FileName.numbered("README", 1) == "README (1)")
    }

    /// A long extension is cut with the name, where it was kept whole past the limit.
    @Test func numberedNamesAreBoundedToo() {
        let long = "x." + String(repeating: "e", count: 253)
        #expect(FileName.numbered(long, 2) == String(long.prefix(251)) + " (2)")
        let short = String(repeating: "a", count: 260) + ".tar"
        #expect(FileName.numbered(short, 10_000) == String(repeating: "a", count: 243) + " (10000).tar")
    }
}
