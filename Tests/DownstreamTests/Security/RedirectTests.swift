@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects against the loopback server: credentials stay with their origin, loops end, and the
/// redirect handler decides.
@Suite(.timeLimit(.minutes(2)))
struct RedirectTests {
    static func requestWithCredentials(_ url: URL, to destination: URL) -> DownloadRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        urlRequest.setValue("session=abc", forHTTPHeaderField: "Cookie")
        urlRequest.setValue("7", forHTTPHeaderField: "X-Trace")
        return DownloadRequest(urlRequest, to: .file(destination))
    }

    @Test func credentialsDoNotFollowARedirectToAnotherOrigin() async throws {
        try await withFixture { fixture in
            // Another server: another port, so another origin.
            let other = try TestServer()
            defer { other.shutdown() }
            let body = Body.pattern(count: 300_000, seed: 720)
            other.setRoute("/file.bin", Route(body: body))
            fixture.server.setRoute(
                "/start",
                .redirect(302, to: other.url("/file.bin").absoluteString))

            let download = await fixture.manager.download(
                Self.requestWithCredentials(fixture.server.url("/start"), to: fixture.file("file.bin")))
            try body.expectMatches(try await download.fileURL)

            let first = try #require(fixture.server.requests("/start").first)
            #expect(first.header("Authorization") == "Bearer secret")
            #expect(first.header("Cookie") == "session=abc")
            let redirected = try #require(other.requests("/file.bin").first)
            #expect(redirected.header("Authorization") == nil)
            #expect(redirected.header("Cookie") == nil)
            #expect(redirected.header("X-Trace") == "7")
            #expect(redirected.rangeStart == 0)
            #expect(redirected.header("Accept-Encoding") == "identity")
        }
    }

    @Test func credentialsFollowARedirectWithinTheOrigin() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 100_000, seed: 721)
            let target = fixture.serve("/moved.bin", body)
            fixture.server.setRoute(
                "/old.bin",
                .redirect(301, to: "/moved.bin"))
            let download = await fixture.manager.download(
                Self.requestWithCredentials(fixture.server.url("/old.bin"), to: fixture.file("moved.bin")))
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/moved.bin").first?.header("Authorization") == "Bearer secret")
            #expect(target.path == "/moved.bin")
        }
    }

    @Test func aRedirectLoopStopsAtTheLimitAndWritesNothing() async throws {
        try await withFixture({ $0.redirects.maximumCount = 3 }) { fixture in
            fixture.server.setRoute(
                "/loop",
                .redirect(302, to: "/loop"))
            let download = await fixture.manager.download(
                from: fixture.server.url("/loop"), to: .file(fixture.file("loop")))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .redirectRefused)
            #expect(error.reason == "more than 3 redirects")
            #expect(!error.isResumable)
            #expect(fixture.server.requests("/loop").count == 4)
            #expect(fixture.listing().allSatisfy { $0.hasSuffix(".partial") })
            #expect(fileLength(download.location.partialURL) ?? 0 == 0)
        }
    }

    /// Linux's URLSession stops the process when a redirect's answer reaches a task that was
    /// cancelled meanwhile: a pause while the handler decides answers first, and the handler's
    /// late answer goes nowhere. The download pauses, then resumes through the redirect.
    @Test func aPauseWhileTheHandlerDecidesPausesAndTheLateAnswerIsDropped() async throws {
        let deciding = AsyncStream<Void>.makeStream()
        let answer = Latch()
        let decisions = Locked(0)
        try await withFixture({ configuration in
            configuration.redirects.handler = { _ in
                let number = decisions.withLock {
                    $0 += 1
                    return $0
                }
                if number == 1 {
                    deciding.continuation.yield()
                    await answer.wait()
                }
                return .follow
            }
        }) { fixture in
            let body = Body.pattern(count: 80_000, seed: 723)
            fixture.serve("/target.bin", body)
            fixture.server.setRoute(
                "/start",
                .redirect(302, to: "/target.bin"))

            let download = await fixture.manager.download(
                from: fixture.server.url("/start"), to: .file(fixture.file("target.bin")))
            var waits = deciding.stream.makeAsyncIterator()
            await waits.next()
            await download.pause()
            #expect(download.state == .paused)
            // The first decision answers now, after the task was cancelled: nothing happens.
            answer.open()
            #expect(fixture.server.requests("/target.bin").isEmpty)

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(decisions.withLock { $0 } == 2)
        }
    }

    @Test func theHandlerCanChangeOrRefuseARedirect() async throws {
        let seen = Locked<[Redirect]>([])
        try await withFixture({ configuration in
            configuration.redirects.handler = { redirect in
                seen.withLock { $0.append(redirect) }
                // Answered later, from another task: the request waits.
                await Task.yield()
                if redirect.request.url?.path == "/forbidden" { return .refuse("not from this mirror") }
                if redirect.request.url?.path == "/mirror-a" {
                    var changed = redirect.request
                    changed.url = redirect.request.url?.deletingLastPathComponent().appendingPathComponent("mirror-b")
                    changed.setValue("chosen", forHTTPHeaderField: "X-Mirror")
                    changed.setValue("bytes=999-", forHTTPHeaderField: "Range")
                    return .follow(changed)
                }
                return .follow
            }
        }) { fixture in
            let body = Body.pattern(count: 50_000, seed: 722)
            fixture.serve("/mirror-b", body)
            fixture.server.setRoute(
                "/changed",
                .redirect(307, to: "/mirror-a"))
            fixture.server.setRoute(
                "/refused",
                .redirect(302, to: "/forbidden"))

            let changed = await fixture.manager.download(
                from: fixture.server.url("/changed"), to: .file(fixture.file("b")))
            try body.expectMatches(try await changed.fileURL)
            let mirrorRequest = try #require(fixture.server.requests("/mirror-b").first)
            #expect(mirrorRequest.header("X-Mirror") == "chosen")
            // The engine's range stays.
            #expect(mirrorRequest.rangeStart == 0)
            #expect(fixture.server.requests("/mirror-a").isEmpty)

            let refused = await fixture.manager.download(
                from: fixture.server.url("/refused"), to: .file(fixture.file("r")))
            let error = try await #require(throws: DownloadError.self) { try await refused.fileURL }
            #expect(error.kind == .redirectRefused)
            #expect(error.reason == "not from this mirror")
            #expect(fixture.server.requests("/forbidden").isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.file("r").path))

            let redirects = seen.withLock { $0 }
            #expect(redirects.count == 2)
            let first = try #require(redirects.first { $0.downloadID == changed.id })
            #expect(first.response.statusCode == 307)
            #expect(first.response.value(forHTTPHeaderField: "Location") == "/mirror-a")
            #expect(first.originalURL == fixture.server.url("/changed"))
            #expect(first.previousCount == 0)
        }
    }
}
