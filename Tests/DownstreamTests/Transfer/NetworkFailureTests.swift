@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Connections that break mid-body: a typed error, the partial kept, and a resume that asks for
/// exactly the missing bytes.
@Suite(.timeLimit(.minutes(2)))
struct NetworkFailureTests {
    enum Breakage: String, CaseIterable, CustomTestStringConvertible {
        case reset, earlyClose, stall

        var testDescription: String { rawValue }

        func fault(after bytes: Int64) -> Fault {
            switch self {
            case .reset: .resetAfter(bytes)
            case .earlyClose: .closeAfter(bytes)
            case .stall: .stallAfter(bytes)
            }
        }

        /// The URLError code the transport reports for it (measured).
        var expectedCode: URLError.Code {
            switch self {
            case .reset: .networkConnectionLost
            case .earlyClose: TransportUnderTest.earlyCloseCode
            case .stall: .timedOut
            }
        }
    }

    @Test(arguments: Breakage.allCases)
    func aBrokenConnectionFailsResumablyAndResumeAsksForTheMissingBytes(_ breakage: Breakage) async throws {
        // Only the stall needs a short timeout; a short one elsewhere could fire before the first
        // byte on a loaded machine.
        try await withFixture({ $0.network.requestTimeout = breakage == .stall ? .seconds(2) : .seconds(60) }) {
            fixture in
            let body = Body.pattern(count: 2_000_000, seed: 30)
            let url = fixture.serve("/b", body) { $0.faults = [breakage.fault(after: 777_777)] }
            let destination = fixture.file("b.bin")
            let download = await fixture.manager.download(from: url, to: .file(destination))

            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .network)
            #expect(error.urlErrorCode == breakage.expectedCode, "\(error)")
            #expect(error.isResumable)
            #expect(download.state == .failed)
            let partial = destination.appendingPathExtension("partial")
            switch breakage {
            case .earlyClose:
                // A close (FIN) loses nothing sent.
                #expect(fileLength(partial) == 777_777)
            case .reset:
                // A reset discards what the client's kernel received but had not handed over: on a
                // busy machine that can be all of it.
                #expect(fileLength(partial).map { $0 <= 777_777 } == true)
            case .stall:
                // The stall's short timeout can also fire before the first byte on a busy machine
                // (then there is no partial file yet); otherwise all the bytes sent are kept.
                #expect([nil, 0, 777_777].contains(fileLength(partial)))
            }
            var kept = fileLength(partial) ?? 0
            #expect(!FileManager.default.fileExists(atPath: destination.path))

            await download.resume()
            if breakage == .stall {
                // The resumed request has the stall's 2 s timeout too, and a full run on URLSession
                // saw it fire (every session of a process shares one work queue, which another
                // test's transfer held back by a bandwidth limit holds too): each resume still asks
                // for exactly the bytes missing on disk, and the next one goes on.
                for _ in 0..<5 {
                    do {
                        _ = try await download.fileURL
                        break
                    } catch let error as DownloadError where error.urlErrorCode == .timedOut {}
                    #expect(fixture.server.requests("/b").last?.rangeStart == fixture.rangeStart(continuing: kept))
                    kept = fileLength(partial) ?? 0
                    await download.resume()
                }
            }
            try body.expectMatches(try await download.fileURL)
            // The resume asks for exactly the bytes missing on disk.
            let resume = try #require(fixture.server.requests("/b").last)
            #expect(resume.rangeStart == fixture.rangeStart(continuing: kept))
            #expect(resume.bodyBytesSent == body.count - fixture.rangeStart(continuing: kept))
            if breakage != .stall {
                #expect(fixture.server.requests("/b").map(\.rangeStart) == [0, fixture.rangeStart(continuing: kept)])
            }
        }
    }

    @Test func aNewDownloadAfterAFailureContinuesFromTheDisk() async throws {
        try await withFixture { fixture in
            let body = Body.pattern(count: 1_000_000, seed: 31)
            // An early close (FIN) loses no byte sent, so the resume point is exact.
            let url = fixture.serve("/again", body) { $0.faults = [.closeAfter(123_456)] }
            let destination = fixture.file("again.bin")
            await #expect(throws: DownloadError.self) {
                try await fixture.manager.downloadFile(from: url, to: .file(destination))
            }
            // The same manager joins its failed download and resumes it.
            try body.expectMatches(try await fixture.manager.downloadFile(from: url, to: .file(destination)))
            #expect(
                fixture.server.requests("/again").map(\.rangeStart) == [0, fixture.rangeStart(continuing: 123_456)])
        }
    }

    @Test func aServerThatCannotBeReachedFailsWithANetworkError() async throws {
        try await withFixture { fixture in
            // A server that holds its port without listening: connections are refused. (A server
            // shut down frees its port, which another test's server may take meanwhile: CI saw
            // a 404 from one.)
            let refusing = try TestServer(listening: false)
            defer { refusing.shutdown() }
            let url = refusing.url("/gone")
            let download = await fixture.manager.download(from: url, to: .directory(fixture.directory))
            let error = try await #require(throws: DownloadError.self) { try await download.fileURL }
            #expect(error.kind == .network)
            #expect(error.urlErrorCode == .cannotConnectToHost)
        }
    }
}
