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
        ("name\u{0}with\u{1}controls\u{7F}.bin", "namewithcontrols.bin"),
        ("line\nbreak.txt", "linebreak.txt"),
        ("a:b.txt", "a_b.txt"),
        ("CON", "_CON"),
        ("com1.txt", "_com1.txt"),
        ("  spaced  ", "spaced"),
        ("trailing.", "trailing"),
        // Plain ASCII, the common case, is still bounded.
        (String(repeating: "a", count: 300) + ".bin", String(repeating: "a", count: 251) + ".bin"),
        ("episode-12_final.mp3", "episode-12_final.mp3"),
    ])
    func sanitizes(_ input: String, _ expected: String) {
        #expect(FileName.sanitize(input) == expected)
    }

    @Test func boundsTheLengthAndKeepsTheExtension() {
        let long = String(repeating: "é", count: 300) + ".tar"
        let safe = FileName.sanitize(long)
        #expect(safe.utf8.count <= 255)
        #expect(safe.hasSuffix(".tar"))
        #expect(safe.hasPrefix("éé"))
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
}
