import Foundation
import Testing

@testable import Downstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct DownloadErrorTests {
    @Test func kindsCarryTheirDetails() {
        #expect(DownloadError.httpStatus(503).statusCode == 503)
        #expect(DownloadError.httpStatus(503).kind == .httpStatus)
        #expect(DownloadError.network(.timedOut).urlErrorCode == .timedOut)
        #expect(DownloadError.fileSystem(path: "/x", reason: "full").path == "/x")
        #expect(DownloadError.destinationExists(path: "/y").path == "/y")
        #expect(DownloadError.cancelled.kind == .cancelled)
    }

    @Test func thePublicInitializerMakesWhatDownstreamMakes() {
        #expect(
            DownloadError(
                .httpStatus, reason: HTTPURLResponse.localizedString(forStatusCode: 503), statusCode: 503,
                retryAfter: .seconds(5))
                == .httpStatus(503, retryAfter: .seconds(5)))
        #expect(
            DownloadError(.network, reason: "reset", urlErrorCode: .timedOut) == .network(.timedOut, reason: "reset"))
        #expect(DownloadError(.fileSystem, reason: "full", path: "/x") == .fileSystem(path: "/x", reason: "full"))
        #expect(DownloadError(.cancelled, reason: "by request") == .cancelled)
        let failure = DownloadError.URLFailure(url: URL(fileURLWithPath: "/a"), error: .cancelled)
        #expect(
            DownloadError(.allURLsFailed, reason: "1 URLs failed", urlFailures: [failure]) == .allURLsFailed([failure]))
        #expect(DownloadError(.destinationExists, reason: "file exists", path: "/y").isResumable)
        #expect(!DownloadError.destinationExistsBeforeDownloading(path: "/y").isResumable)
    }

    @Test func resumabilityFollowsWhatCanChangeWithoutTheUser() {
        #expect(DownloadError.httpStatus(503).isResumable)
        #expect(DownloadError.httpStatus(429).isResumable)
        #expect(DownloadError.httpStatus(408).isResumable)
        #expect(!DownloadError.httpStatus(404).isResumable)
        #expect(!DownloadError.httpStatus(401).isResumable)
        #expect(DownloadError.network(.networkConnectionLost).isResumable)
        #expect(DownloadError.serverFileChanged("etag").isResumable)
        #expect(!DownloadError.invalidRequest("ftp").isResumable)
        #expect(!DownloadError.cancelled.isResumable)
    }

    @Test(arguments: [
        (DownloadError.httpStatus(404), ["404", "URL"]),
        (DownloadError.httpStatus(503), ["503", "resume"]),
        (DownloadError.network(.networkConnectionLost, reason: "reset by peer"), ["-1005", "reset by peer", "resume"]),
        (
            DownloadError.fileSystem(path: "/data/x.partial", reason: "No space left"),
            ["/data/x.partial", "No space left"]
        ),
        (DownloadError.destinationExists(path: "/d/a.zip"), ["/d/a.zip", "conflict policy"]),
        (DownloadError.serverFileChanged("ETag changed"), ["ETag changed", "beginning"]),
        (DownloadError.unexpectedResponse("206 starts at byte 5"), ["206 starts at byte 5"]),
        (DownloadError.invalidRequest("only http"), ["only http"]),
    ])
    func descriptionsSayWhatHappenedAndWhatToDo(_ error: DownloadError, _ phrases: [String]) {
        for phrase in phrases {
            #expect(error.description.contains(phrase), "\(error.description)")
        }
    }

    @Test func errorsAreEquatableByKindAndDetails() {
        #expect(DownloadError.httpStatus(404) == .httpStatus(404))
        #expect(DownloadError.httpStatus(404) != .httpStatus(410))
        #expect(DownloadError.network(.timedOut) != .network(.cannotConnectToHost))
    }
}
