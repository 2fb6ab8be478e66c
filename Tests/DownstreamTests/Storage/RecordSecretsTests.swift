@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Secrets stay in memory: a record keeps no credentials of its request and of its response only
/// what continuing needs, however much the server sends; the app gives its credentials again
/// through the request adapter, before every attempt and after a relaunch.
@Suite(.timeLimit(.minutes(1)))
struct RecordSecretsTests {
    static let token = "Bearer s3cret-token"

    /// Every byte the store holds, as text.
    static func storeText(_ fixture: Fixture) -> String {
        var text = ""
        let files = FileManager.default.enumerator(atPath: fixture.storeDirectory.path)?.allObjects as? [String] ?? []
        for name in files {
            let file = fixture.storeDirectory.appendingPathComponent(name)
            if let data = try? Data(contentsOf: file) { text += String(decoding: data, as: UTF8.self) }
        }
        return text
    }

    @Test func aPausedDownloadsRecordKeepsNoCredentialsNorWhatTheServerSentBeyondValidators() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 801)
            // 200 KB of headers (a head over 256 KiB is refused), a cookie, and validators.
            var filler: [String: String] = ["Set-Cookie": "session=server-secret; HttpOnly"]
            for index in 0..<200 { filler["X-Filler-\(index)"] = String(repeating: "f", count: 1_000) }
            let url = fixture.serve("/secret.bin", body) {
                $0.etag = "\"v1\""
                $0.extraHeaders = filler
                $0.faults = [.holdAfter(1_000_000)]
            }
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue(Self.token, forHTTPHeaderField: "Authorization")
            urlRequest.setValue("user=cookie-secret", forHTTPHeaderField: "Cookie")
            urlRequest.setValue("key-secret", forHTTPHeaderField: "X-Api-Key")
            urlRequest.setValue("kept", forHTTPHeaderField: "X-Trace")
            let download = await fixture.manager.download(DownloadRequest(urlRequest, to: .file(fixture.file("s.bin"))))
            await download.waitForBytes(500_000)
            await download.pause()
            fixture.server.release("/secret.bin")

            let stored = Self.storeText(fixture)
            for secret in ["s3cret-token", "cookie-secret", "key-secret", "server-secret", "X-Filler"] {
                #expect(!stored.contains(secret), "the store holds \(secret)")
            }
            #expect(stored.contains("\"X-Trace\":\"kept\""))
            #expect(stored.contains("\\\"v1\\\""))
            // The record file: two slots of a few kilobytes, not 2 MiB.
            #expect(fileLength(fixture.recordFile(download.id)) ?? 0 < 32 << 10)
            // In this process the request is whole: the download goes on with its credentials.
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/secret.bin").allSatisfy { $0.header("Authorization") == Self.token })
        }
    }

    @Test func aRestoredDownloadGetsItsCredentialsFromTheAdapter() async throws {
        try await withFixture(startsManager: false) { fixture in
            let body = Body.pattern(count: 300_000, seed: 802)
            let url = fixture.serve("/private.bin", body) { $0.requiredAuthorization = Self.token }
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue(Self.token, forHTTPHeaderField: "Authorization")
            try fixture.leaveInterruptedDownload(
                of: url, to: .file(fixture.file("p.bin")), partial: body, length: 100_000
            ) { $0.request.headers = StoredDownload.storedRequestHeaders(["Authorization": Self.token]) }

            // Without the adapter: the store had nothing to send.
            do {
                let manager = try fixture.makeManager()
                let download = try #require(await manager.downloads.first)
                await download.resume()
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.statusCode == 401)
                await manager.invalidate()
            }
            let asked = Locked<[RequestAdaptation]>([])
            let manager = try fixture.makeManager {
                $0.authentication.requestAdapter = { adaptation in
                    asked.withLock { $0.append(adaptation) }
                    return ["Authorization": Self.token]
                }
            }
            let download = try #require(await manager.downloads.first)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(asked.withLock { $0.map(\.url) } == [url])
            #expect(asked.withLock { $0.map(\.downloadID) } == [download.id])
            #expect(fixture.server.requests("/private.bin").last?.rangeStart == fixture.rangeStart(continuing: 100_000))
        }
    }

    @Test func theAdapterIsAskedBeforeEachAttemptAndItsHeadersGoWithEveryRequestOfIt() async throws {
        let asked = Locked(0)
        try await withFixture({
            $0.network.maximumBytesPerRequest = 100_000
            $0.retry.initialDelay = .zero
            $0.retry.maximumRetries = 1
            $0.authentication.requestAdapter = { _ in
                let number = asked.withLock { count in
                    count += 1
                    return count
                }
                return ["X-Attempt": "\(number)"]
            }
        }) { fixture in
            let body = Body.pattern(count: 350_000, seed: 803)
            // The second request fails with a 503: a retry, a new attempt.
            let url = fixture.serve("/ranges.bin", body) { $0.faults = [.none, .status(503)] }
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .file(fixture.file("r.bin"))))
            // The first attempt's two ranges (the second answered 503), then the retry's.
            let attempts = fixture.server.requests("/ranges.bin").map { $0.header("X-Attempt") }
            #expect(Array(attempts.prefix(2)) == ["1", "1"], "\(attempts)")
            #expect(attempts.dropFirst(2).allSatisfy { $0 == "2" }, "\(attempts)")
            #expect(attempts.count >= 5)
            #expect(asked.withLock { $0 } == 2)
        }
    }

    struct NoToken: Error {}

    @Test func anAdapterThatThrowsFailsTheDownloadBeforeItSendsAnything() async throws {
        try await withFixture({
            $0.authentication.requestAdapter = { adaptation in
                if adaptation.request.metadata["typed"] != nil {
                    throw DownloadError(.network, reason: "no token yet", urlErrorCode: .notConnectedToInternet)
                }
                if adaptation.request.metadata["split"] != nil { return ["X-Token": "a\r\nb"] }
                throw NoToken()
            }
        }) { fixture in
            let url = fixture.serve("/f.bin", .pattern(count: 1_000, seed: 804))
            for (key, kind, reason) in [
                ("typed", DownloadError.Kind.network, "no token yet"),
                ("other", .invalidRequest, "the request adapter failed: NoToken()"),
                (
                    "split", .invalidRequest,
                    "the request adapter's headers: the value of the header X-Token holds a line break or a NUL: \"a\\u{D}\\u{A}b\""
                ),
            ] {
                var request = DownloadRequest(url: url, to: .file(fixture.file(key)))
                request.metadata = [key: "1"]
                let download = await fixture.manager.download(request)
                let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
                #expect(error.kind == kind)
                #expect(error.reason == reason)
            }
            #expect(fixture.server.requests("/f.bin").isEmpty)
        }
    }

    /// No cookie jar, on either transport: a server's cookie goes to no later request (of this
    /// download, another, or another server of the same host) and is kept nowhere.
    @Test func aServersCookieIsNotKeptForAnyRequest() async throws {
        try await withFixture({ $0.network.maximumBytesPerRequest = 100_000 }) { fixture in
            let body = Body.pattern(count: 250_000, seed: 805)
            let first = fixture.serve("/first.bin", body) {
                $0.extraHeaders = ["Set-Cookie": "jar=server-secret; Path=/"]
            }
            let second = fixture.serve("/second.bin", body)
            _ = try await fixture.manager.downloadFile(from: first, to: .file(fixture.file("first.bin")))
            _ = try await fixture.manager.downloadFile(from: second, to: .file(fixture.file("second.bin")))
            let requests = fixture.server.requests("/first.bin") + fixture.server.requests("/second.bin")
            #expect(requests.count >= 4)
            #expect(requests.allSatisfy { $0.header("Cookie") == nil }, "\(requests.map { $0.header("Cookie") })")
        }
    }

    @Test func whatARecordKeepsOfAResponseIsBounded() {
        var headers = ["ETag": "\"v1\"", "Set-Cookie": "a=b", "Content-Type": "text/plain", "X-Other": "o"]
        headers["Content-Disposition"] = String(repeating: "d", count: 2_000)
        for index in 0..<10 { headers["x-amz-checksum-\(index)"] = String(repeating: "c", count: 1_000) }
        let stored = StoredDownload.storedResponse(ServerResponse(url: nil, statusCode: 200, headers: headers))
        #expect(stored.headers["ETag"] == "\"v1\"")
        #expect(stored.headers["Content-Type"] == "text/plain")
        #expect(stored.headers["Set-Cookie"] == nil)
        #expect(stored.headers["X-Other"] == nil)
        // Longer than a value may be.
        #expect(stored.headers["Content-Disposition"] == nil)
        let bytes = stored.headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        #expect(bytes <= StoredDownload.storedResponseBytes)
        #expect(stored.headers.keys.contains { $0.hasPrefix("x-amz-checksum-") })
    }
}
