@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// The system-task engine with real download tasks of an ordinary session (on every platform:
/// a background session's tasks run in a system daemon, outside the test), against the loopback
/// server. What differs between platforms is asserted for each: Apple's download tasks give
/// resume data, Linux Foundation's never do.
@Suite(.timeLimit(.minutes(2)))
struct SystemEngineTests {
    /// Whether the platform's download tasks give resume data and continue from it.
    static let systemResumes: Bool = {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }()

    static func foreground(_ configuration: inout DownloadManager.Configuration) {
        configuration.background = .init(sessionIdentifier: "test.background.\(UUID().uuidString)")
        useOrdinarySession(&configuration)
    }

    /// The system-task engine of a manager with background settings runs download tasks of an
    /// ordinary session, on every platform.
    static func useOrdinarySession(_ configuration: inout DownloadManager.Configuration) {
        let name = configuration.identifier
        configuration.makeSystemSession = { router in
            URLSystemSession(configuration: .default, router: router, pendingCallbackLimit: 64, name: name)
        }
    }

    @Test func aBackgroundSessionIsAClearErrorOnlyWhereThereIsNone() async throws {
        try await withFixture(startsManager: false) { fixture in
            let background = DownloadManager.Configuration.Background(sessionIdentifier: "test.background")
            if Self.systemResumes {
                // Apple platforms have background sessions: the manager starts.
                _ = try fixture.makeManager { $0.background = background }
                return
            }
            let error = try #require(throws: DownloadError.self) {
                try fixture.makeManager { $0.background = background }
            }
            #expect(error.kind == .managerUnavailable)
            #expect(error.description.contains("onUnsupportedPlatform"))
            // Nothing is left claimed by the failed manager.
            _ = try fixture.makeManager()
        }
    }

    @Test func aDownloadTaskDeliversTheFile() async throws {
        try await withFixture(Self.foreground) { fixture in
            let body = Body.pattern(count: 2_500_000, seed: 300)
            let url = fixture.serve("/system/file.bin", body) {
                $0.contentDisposition = "attachment; filename=\"report.bin\""
            }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.file("inbox")))
            let values = Task { await Array(download.progress) }

            let file = try await download.fileURL
            #expect(file.lastPathComponent == "report.bin")
            try body.expectMatches(file)
            #expect(await download.allEvents() == [.queued, .running, .completed(file)])
            let progress = await values.value
            #expect(progress.last?.bytesReceived == body.count)
            #expect(progress.contains { $0.expectedBytes == body.count })
            // The system's file was moved, not copied; nothing else is left.
            #expect(fixture.listing(fixture.file("inbox")) == ["report.bin"])
            #expect(fixture.storedRecords().isEmpty)
            // A download task asks for the whole file, without Range.
            #expect(fixture.server.requests("/system/file.bin").map(\.rangeStart) == [nil])
        }
    }

    @Test func anErrorStatusFailsWithoutAFile() async throws {
        try await withFixture(Self.foreground) { fixture in
            let url = fixture.serve("/system/missing", .pattern(count: 100)) { $0.faults = [.status(404)] }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error == .httpStatus(404))
            #expect(fixture.listing().isEmpty)
        }
    }

    @Test func aBrokenConnectionFailsAndResumeStartsAgain() async throws {
        try await withFixture(Self.foreground) { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 301)
            let url = fixture.serve("/system/broken", body) {
                $0.etag = "\"v1\""
                $0.faults = [.resetAfter(300_000)]
            }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .network)
            let resumeData = fixture.storedRecord(download.id)?.systemResumeData
            await download.resume()
            try body.expectMatches(try await download.fileURL)
            let starts = fixture.server.requests("/system/broken").map(\.rangeStart)
            if Self.systemResumes {
                // Apple's task leaves resume data (the server has a validator): the next task
                // continues from the bytes the first one kept.
                #expect(resumeData != nil)
                #expect(starts.count == 2 && starts[0] == nil && (starts[1] ?? 0) > 0, "\(starts)")
            } else {
                // Linux gives no resume data: the next task starts from the first byte.
                #expect(resumeData == nil)
                #expect(starts == [nil, nil])
            }
        }
    }

    @Test func pauseStopsTheTaskAndResumeFinishesTheFile() async throws {
        try await withFixture(Self.foreground) { fixture in
            let body = Body.pattern(count: 2_000_000, seed: 302)
            let url = fixture.serve("/system/paused", body) { $0.faults = [.holdAfter(500_000)] }
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            await download.waitForBytes(500_000)
            await download.pause()
            #expect(download.state == .paused)
            #expect(fixture.storedRecord(download.id)?.intent == .paused)
            await download.resume()
            try body.expectMatches(try await download.fileURL)
        }
    }

    @Test(.enabled(if: !systemResumes, "Apple's download tasks resume from resume data"))
    func resumeDataIsNotUsedWhereTheSystemCannotResume() async throws {
        try await withFixture(Self.foreground) { fixture in
            let body = Body.pattern(count: 300_000, seed: 304)
            let url = fixture.serve("/system/resumed", body)
            let download = await fixture.manager.download(
                DownloadRequest(url: url, to: .directory(fixture.directory)), startsPaused: true)
            // Resume data of another system: Linux Foundation cannot resume from any (making a task
            // of it stops the process), so it is dropped and the file starts from its first byte.
            try #require(download.recordFile).update { $0.systemResumeData = Data("not resume data".utf8) }

            await download.resume()
            try body.expectMatches(try await download.fileURL)
            #expect(fixture.server.requests("/system/resumed").map(\.rangeStart) == [nil])
        }
    }

    @Test func completionHandlersRunInOrderForEveryCompletedDownload() async throws {
        try await withFixture(Self.foreground) { fixture in
            let calls = Locked<[String]>([])
            let (secondRan, ran) = AsyncStream<Void>.makeStream()
            fixture.manager.addCompletionHandler { download, file in
                calls.withLock { $0.append("first \(file.lastPathComponent)") }
                #expect(FileManager.default.fileExists(atPath: file.path))
                #expect(download.state == .completed)
            }
            fixture.manager.addCompletionHandler { _, file in
                calls.withLock { $0.append("second \(file.lastPathComponent)") }
                ran.yield()
            }
            let body = Body.pattern(count: 1000, seed: 303)
            let url = fixture.serve("/system/handled.bin", body)
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            _ = try await download.fileURL
            // The handlers run after the waiters are woken: wait for the second.
            var iterator = secondRan.makeAsyncIterator()
            await iterator.next()
            #expect(calls.value == ["first handled.bin", "second handled.bin"])
        }
    }
}
