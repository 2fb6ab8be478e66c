import Foundation
import Testing

@testable import Downstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request made from a URL keeps only its URL, and one restored without headers only its
/// URL's text; each makes what it lacks when asked: it is the same request as one made from a
/// `URLRequest`.
struct DownloadRequestTests {
    static let url = URL(string: "https://example.com/files/a.bin")!
    static let destination = Destination.directory(URL(fileURLWithPath: "/tmp/downloads"))

    @Test func aRequestFromAURLIsAGetOfThatURLWithoutHeaders() {
        let request = DownloadRequest(url: Self.url, to: Self.destination)
        #expect(request.url == Self.url)
        #expect(request.urlRequest.url == Self.url)
        #expect(request.urlRequest.httpMethod ?? "GET" == "GET")
        #expect(request.urlRequest.allHTTPHeaderFields ?? [:] == [:])
        #expect(request.httpMethod == "GET")
        #expect(request.headerFields == [:])
    }

    /// A request keeps a URL as its text when it can (100,000 queued downloads would hold as many
    /// `URL`s): whatever shape the URL has, the request gives back an equal one.
    @Test(arguments: [
        URL(string: "https://example.com/files/a.bin")!,
        URL(string: "http://127.0.0.1:8080/a%20b.bin?x=1&y=%2F#frag")!,
        URL(string: "https://user:pass@example.com:8443/p;params/q?")!,
        URL(string: "https://xn--bcher-kva.example/%E2%82%AC.bin")!,
        URL(string: "HTTPS://EXAMPLE.COM/Upper.BIN")!,
        URL(string: "http://[::1]:9/v6.bin")!,
        URL(string: "files/a.bin", relativeTo: URL(string: "https://example.com/base/")!)!,
        URL(string: "../up.bin", relativeTo: URL(string: "https://example.com/a/b/")!)!,
        URL(fileURLWithPath: "/tmp/a b.bin"),
    ])
    func aRequestGivesBackAnEqualURL(url: URL) {
        let request = DownloadRequest(url: url, to: Self.destination)
        #expect(request.url == url)
        #expect(request.url?.absoluteString == url.absoluteString)
        // (A `URLRequest` makes a relative URL absolute, on Linux.)
        #expect(request.urlRequest.url?.absoluteString == url.absoluteString)
    }

    @Test func aChangeToItsURLRequestIsKept() {
        var request = DownloadRequest(url: Self.url, to: Self.destination)
        request.urlRequest.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        request.urlRequest.httpMethod = "post"
        #expect(request.urlRequest.value(forHTTPHeaderField: "Authorization") == "Bearer abc")
        #expect(request.headerFields == ["Authorization": "Bearer abc"])
        #expect(request.httpMethod == "POST")
        let other = URL(string: "https://example.org/b.bin")!
        request.urlRequest = URLRequest(url: other)
        #expect(request.url == other)
        #expect(request.headerFields == [:])
    }

    /// A stored request comes back as it was: its URL alone when it had no headers, with its
    /// headers when it had them, but those that carry secrets, which are not stored.
    @Test(arguments: [
        ([:], [:]),
        (["X-Trace": "1"], ["X-Trace": "1"]),
        (
            [
                "Authorization": "Bearer abc", "X-Trace": "1", "Cookie": "s=1", "Proxy-Authorization": "Basic eA==",
                "X-Auth-Token": "t", "X-Api-Key": "k",
            ],
            ["X-Trace": "1"]
        ),
    ])
    func aRestoredRequestIsTheRequestStored(given: [String: String], headers: [String: String]) {
        var request = DownloadRequest(url: Self.url, to: Self.destination)
        for (name, value) in given {
            request.urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        request.metadata = ["title": "A"]
        let location = PartialLocation(url: Self.url, destination: Self.destination, partialsDirectory: nil)
        let record = StoredDownload(id: Download.ID(), request: request, url: Self.url, location: location)
        let restored = record.downloadRequest(to: Self.destination)
        #expect(restored.url == Self.url)
        #expect(restored.urlRequest.url == Self.url)
        #expect(restored.headerFields == headers)
        #expect(restored.urlRequest.allHTTPHeaderFields ?? [:] == headers)
        #expect(restored.metadata == ["title": "A"])
        #expect(restored.httpMethod == "GET")
        // Stored again, it is the same record.
        #expect(
            StoredDownload(id: record.id, request: restored, url: Self.url, location: location, created: record.created)
                == record)
    }

    /// A URL restored from its text is the URL stored, whatever its parts and escapes.
    @Test(arguments: [
        "https://example.com/a%20b.bin?x=1&y=%2F#part",
        "http://user:p%40ss@[::1]:8080/files/%E2%82%AC.bin",
        "https://xn--bcher-kva.example/b%C3%BCcher/?",
        "http://127.0.0.1:9/file-1.bin",
    ])
    func aURLRestoredFromItsTextIsTheURLStored(text: String) throws {
        let url = try #require(URL(string: text))
        let request = DownloadRequest(url: url, to: Self.destination)
        let location = PartialLocation(url: url, destination: Self.destination, partialsDirectory: nil)
        let record = StoredDownload(id: Download.ID(), request: request, url: url, location: location)
        let restored = record.downloadRequest(to: Self.destination)
        #expect(restored.url == url)
        #expect(restored.url?.absoluteString == text)
        #expect(restored.url?.host == url.host)
        #expect(restored.url?.port == url.port)
        #expect(restored.url?.path == url.path)
        #expect(restored.url?.query == url.query)
        #expect(restored.urlRequest.url == url)
    }
}

/// What Downstream prints of URLs and server text (``LogText``).
@Suite struct LogTextTests {
    @Test(arguments: [
        ("https://example.com/f.iso", "https://example.com/f.iso"),
        ("https://alice:pw@example.com/f.iso", "https://***@example.com/f.iso"),
        ("https://alice@example.com/f.iso", "https://***@example.com/f.iso"),
        (
            "https://b.s3.amazonaws.com/f?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc&X-Amz-Expires=60",
            "https://b.s3.amazonaws.com/f?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60"
        ),
        (
            "https://e.com/f?token=t&v=2&access_token=a&sig=s&key=k",
            "https://e.com/f?token=***&v=2&access_token=***&sig=***&key=***"
        ),
        ("https://e.com/f?flag", "https://e.com/f?flag"),
    ])
    func aURLIsWrittenWithoutItsSecrets(_ text: String, _ expected: String) throws {
        #expect(LogText.url(try #require(URL(string: text))) == expected)
    }

    @Test func serverTextCannotTakeATerminalOver() {
        #expect(LogText.escaped("plain text\twith a tab") == "plain text\twith a tab")
        #expect(LogText.escaped("a\u{1B}[2Jb") == "a\\u{1B}[2Jb")
        #expect(LogText.escaped("line\nbreak\r") == "line\\u{A}break\\u{D}")
        #expect(LogText.escaped("\u{9B}31m") == "\\u{9B}31m")
        #expect(LogText.escaped("invoice\u{202E}fdp.exe") == "invoice\\u{202E}fdp.exe")
        #expect(LogText.escaped("é ✓ 日本") == "é ✓ 日本")
    }
}
