import Foundation
import Testing

@testable import Downstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request made from a URL, or restored without headers, keeps only its URL and makes its
/// `URLRequest` when asked: it is the same request as one made from a `URLRequest`.
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
    /// headers when it had them.
    @Test(arguments: [[:], ["Authorization": "Bearer abc", "X-Trace": "1"]])
    func aRestoredRequestIsTheRequestStored(headers: [String: String]) {
        var request = DownloadRequest(url: Self.url, to: Self.destination)
        for (name, value) in headers {
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
        // Stored again, it is the same record.
        #expect(
            StoredDownload(id: record.id, request: restored, url: Self.url, location: location, created: record.created)
                == record)
    }
}
