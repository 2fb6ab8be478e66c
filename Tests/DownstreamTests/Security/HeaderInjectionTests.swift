@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A header value with a line break ends its field, or the whole request, where the sender did not
/// mean it to, and the server obeys what follows: a second request on the connection. Every header
/// Downstream would send is checked before anything is sent, on the transport under test (CI runs
/// both), and a download that cannot be sent fails with `invalidRequest` naming the header.
@Suite(.timeLimit(.minutes(1)))
struct HeaderInjectionTests {
    static let smuggling = "a\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x"

    /// Names that are no tokens. (A value with a line break or a NUL never reaches Downstream
    /// through a `URLRequest`: Foundation's `setValue(_:forHTTPHeaderField:)` drops it, measured
    /// on Linux; the manager's headers below are Downstream's to check.)
    static let names: [(name: String, reason: String)] = [
        ("Bad Name", "the header name \"Bad Name\" is not an HTTP token"),
        ("X:Y", "the header name \"X:Y\" is not an HTTP token"),
        ("X-Line\r\nGet", "the header name \"X-Line\\u{D}\\u{A}Get\" is not an HTTP token"),
    ]

    @Test(arguments: 0..<names.count)
    func aRequestHeaderThatIsNoHeaderFailsBeforeAnythingIsSent(_ index: Int) async throws {
        let (name, reason) = Self.names[index]
        try await withFixture { fixture in
            let url = fixture.serve("/file.bin", .pattern(count: 1_000, seed: 1))
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue("v", forHTTPHeaderField: name)
            let download = await fixture.manager.download(DownloadRequest(urlRequest, to: .file(fixture.file("f"))))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .invalidRequest)
            #expect(error.reason == reason)
            #expect(fixture.server.requests("/file.bin").isEmpty)
        }
    }

    @Test func aValueWithALineBreakNeverReachesTheServer() async throws {
        try await withFixture { fixture in
            let url = fixture.serve("/file.bin", .pattern(count: 1_000, seed: 4))
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue(Self.smuggling, forHTTPHeaderField: "X-Token")
            let download = await fixture.manager.download(DownloadRequest(urlRequest, to: .file(fixture.file("f"))))
            _ = await download.outcome()
            #expect(fixture.server.requests("/file.bin").allSatisfy { $0.header("X-Token") == nil })
            #expect(fixture.server.requests("/smuggled").isEmpty)
        }
    }

    @Test(arguments: [
        (false, "the value of the header User-Agent holds a line break or a NUL"),
        (true, "the value of the header X-Extra holds a line break or a NUL"),
    ])
    func theManagersHeadersAreCheckedForNewAndRestoredDownloads(_ inAdditional: Bool, _ prefix: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/file.bin", .pattern(count: 1_000, seed: 2))
            // One left by an earlier process, whose request no new download checks.
            try fixture.leaveInterruptedDownload(of: url, to: .file(fixture.file("restored")), partial: nil)
            let manager = try fixture.makeManager {
                if inAdditional {
                    $0.network.additionalHeaders = ["X-Extra": Self.smuggling]
                } else {
                    $0.network.userAgent = Self.smuggling
                }
            }
            let new = await manager.download(from: url, to: .file(fixture.file("new")))
            let restored = try #require(await manager.downloads.first { $0.id != new.id })
            await restored.resume()
            for download in [new, restored] {
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == .invalidRequest)
                #expect(error.reason.hasPrefix(prefix), "\(error.reason)")
                #expect(error.reason.hasSuffix("(the manager's network settings)"), "\(error.reason)")
            }
            #expect(fixture.server.requests("/file.bin").isEmpty)
            #expect(fixture.server.requests("/smuggled").isEmpty)
        }
    }

    @Test func dlSendsNothingForAUserAgentThatWouldSplitTheRequest() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/file.bin", .pattern(count: 1_000, seed: 3))
            let (status, _, errors) = try await DLChild.run(["-U", Self.smuggling, url.absoluteString], in: fixture)
            #expect(status == 1)
            #expect(errors.contains("the value of the header User-Agent holds a line break or a NUL"), "\(errors)")
            #expect(fixture.server.requests("/file.bin").isEmpty)
            #expect(fixture.server.requests("/smuggled").isEmpty)
        }
    }

    @Test func headerFieldsAreTokensWithValuesOnOneLine() {
        #expect(HeaderField.problem(name: "X-Custom_Header.1~!", value: "any\tvalue, with \"quotes\" and é") == nil)
        #expect(HeaderField.problem(name: "", value: "v") == "the header name \"\" is not an HTTP token")
        #expect(HeaderField.problem(name: "Ünicode", value: "v") != nil)
        #expect(HeaderField.problem(in: ["A": "1", "B\n": "2"]) == "the header name \"B\\u{A}\" is not an HTTP token")
    }
}
