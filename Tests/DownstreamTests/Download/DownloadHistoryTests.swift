@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download's history says why it failed, after a relaunch too: its requests and their ranges,
/// the answers, redirects, retries and the error, in order, without a secret, and bounded.
@Suite(.timeLimit(.minutes(2)))
struct DownloadHistoryTests {
    static let secrets = ["query-secret", "redirect-secret", "header-secret"]

    /// `history` as JSON text, as an app would keep or send it.
    static func text(_ history: [DownloadHistoryEntry]) throws -> String {
        String(decoding: try JSONEncoder().encode(history), as: UTF8.self)
    }

    @Test func aFailedDownloadsHistoryListsRequestsAnswersTheRetryAndTheErrorAfterARelaunch() async throws {
        let clock = ManualClock()
        try await withFixture(startsManager: false, RetryTests.retrying(with: clock)) { fixture in
            let body = Body.pattern(count: 300_000, seed: 950)
            fixture.serve("/file.bin", body) { $0.faults = [.closeAfter(100_000), .status(404)] }
            fixture.server.setRoute("/old.bin", .redirect(302, to: "/file.bin?token=redirect-secret"))
            let url = try #require(URL(string: fixture.server.url("/old.bin").absoluteString + "?token=query-secret"))
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue("Bearer header-secret", forHTTPHeaderField: "Authorization")
            let first = try fixture.makeManager()
            let download = await first.download(DownloadRequest(urlRequest, to: .file(fixture.file("f.bin"))))
            var sleeps = clock.sleeps.makeAsyncIterator()
            #expect(await sleeps.next() == .seconds(1))
            clock.advance(by: .seconds(1))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.statusCode == 404)
            let id = download.id
            let live = download.history
            await first.invalidate()

            let manager = try fixture.makeManager()
            let restored = try #require(await manager.downloads.first { $0.id == id })
            let history = restored.history
            #expect(history == live)
            #expect(
                history.map(\.kind) == [
                    .request, .redirect, .response, .retry, .request, .redirect, .response, .failed,
                ])
            let requests = history.filter { $0.kind == .request }
            // The fixture asks in ranges of 64 MiB; the retry continues the 100,000 bytes on disk.
            #expect(
                requests.map(\.range) == [
                    "bytes=0-\((64 << 20) - 1)", "bytes=\(fixture.rangeStart(continuing: 100_000))-",
                ])
            #expect(requests.allSatisfy { $0.url?.hasSuffix("/old.bin?token=***") == true })
            let redirects = history.filter { $0.kind == .redirect }
            #expect(redirects.map(\.statusCode) == [302, 302])
            #expect(redirects.allSatisfy { $0.url?.hasSuffix("/file.bin?token=***") == true })
            let answers = history.filter { $0.kind == .response }
            #expect(answers.map(\.statusCode) == [206, 404])
            #expect(answers[0].contentRange == "bytes 0-299999/300000")
            #expect(answers[0].contentLength == "300000")
            #expect(answers[0].etag == "\"\(StableHash.hex("/file.bin"))\"")
            #expect(answers[0].lastModified == "Sun, 01 Nov 2026 10:00:00 GMT")
            let retry = try #require(history.first { $0.kind == .retry })
            #expect(retry.retryDelay == 1)
            #expect(retry.errorKind == DownloadError.Kind.network.description)
            let failure = try #require(history.last)
            #expect(failure.statusCode == 404)
            #expect(failure.errorKind == DownloadError.Kind.httpStatus.description)
            #expect(zip(history, history.dropFirst()).allSatisfy { $0.date <= $1.date })
            let text = try Self.text(history)
            for secret in Self.secrets {
                #expect(!text.contains(secret), "the history holds \(secret)")
            }
        }
    }

    @Test func manyRetriesKeepTheNewestEntriesWithinTheBound() async throws {
        try await withFixture(startsManager: false) { fixture in
            let url = fixture.serve("/busy.bin", .pattern(count: 1_000, seed: 951)) {
                $0.faults = Array(repeating: .status(503), count: 60)
            }
            var policy = DownloadManager.Configuration.RetryPolicy()
            policy.initialDelay = .zero
            policy.maximumRetries = 40
            policy.jitter = 0
            let first = try fixture.makeManager { $0.retry = policy }
            let download = await first.download(from: url, to: .directory(fixture.directory))
            _ = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(fixture.server.requests("/busy.bin").count == 41)
            let id = download.id
            await first.invalidate()

            let manager = try fixture.makeManager()
            let history = try #require(await manager.downloads.first { $0.id == id }).history
            #expect(history.count == DownloadHistory.maximumEntries)
            #expect(history.last?.kind == .failed)
            let kinds: [DownloadHistoryEntry.Kind] = [.request, .response, .retry]
            let everything = Array(repeating: kinds, count: 40).flatMap { $0 } + [.request, .response, .failed]
            #expect(history.map(\.kind) == Array(everything.suffix(DownloadHistory.maximumEntries)))
            let stored = try #require(fixture.storedRecord(id)?.history)
            var writer = JSONWriter()
            writer.objects("history", stored.entries) { writer, entry in entry.writeMembers(&writer) }
            #expect(writer.bytes.count <= DownloadHistory.maximumBytes + 16)
        }
    }
}
