import Foundation

/// Why a request of a download starts.
enum AttemptKind: Equatable, Sendable {
    /// The first of a run of the download (it started, or resumed): look at the destination,
    /// then continue from the partial file.
    case first
    /// The previous response could not be used: discard the partial file, start at byte 0.
    case restart
    /// The previous request ended where it was meant to (or the server chose to), or was
    /// challenged and answered: go on from the partial file.
    case continuation
}

/// One attempt of a download, as the download gives it to its engines: what its machine and its
/// run decided. The engine plans the requests from it; the download plans none.
struct Attempt: Sendable {
    /// The download's number for the attempt.
    var number: Int
    var kind: AttemptKind
    /// The URL the file comes from now.
    var url: URL
    /// Credentials the authentication handler gave (`Authorization`, `Proxy-Authorization`),
    /// made for each request.
    var credentials = RequestCredentials.none
    /// A copy of the file at the destination: the first request asks for the file only if it
    /// changed since (ranged engine). Set by the engines' look at the destination.
    var existingCopy: ExistingCopy?
    /// A file at the destination that the attempt continues, if the server's file continues it
    /// (``Destination/ConflictPolicy/continueExisting``). Set by the engines' look at the
    /// destination; the file is left as it is until the server's bytes matched its last ones.
    var existingFile: ExistingFile?
    /// Whether a `401` or `407` is a challenge for the download's authentication handler.
    var answersChallenges = false
    /// Challenges answered before this attempt, in this run of the download.
    var previousChallenges = 0
    /// A server answered a segment's range with its whole file in this run: one connection.
    var rangesRefused = false
    /// The headers the app's request adapter gave for this attempt's requests.
    var adaptedHeaders: [String: String] = [:]
}

/// A copy of the file at the destination, and what identifies its version.
struct ExistingCopy: Sendable {
    var path: String
    /// The server's validators of the copy, when this manager delivered it.
    var validator: Validator
    var modified: Date

    /// The headers of a request for the file only if it changed since this copy.
    var conditionalHeaders: [String: String] {
        var headers = ["If-Modified-Since": validator.lastModified ?? HTTPDate.format(modified)]
        headers["If-None-Match"] = validator.etag
        return headers
    }
}

/// How an attempt ended, as its engine reports it to the download, once.
struct AttemptEnd: Sendable {
    /// How the attempt's last request ended.
    var transferEnd: TransferEnd
    /// The last response head of the attempt's last request, if it had one.
    var response: ServerResponse?
    /// A server answered a segment's range with its whole file: the next attempts of the run use
    /// one connection.
    var rangesRefused = false
    /// The attempt failed before it sent a request (its files could not be prepared, the request
    /// cannot be sent): nothing to recover from by asking again.
    var failedBeforeSending = false
    /// The system waits for the download to finish with the file the attempt delivered (a system
    /// task's file, in a batch of background events whose completion handler is called once
    /// every such file is in place): the download tells its engines
    /// (``DownloadEngines/backgroundWorkEnded()``) once it delivered the file, failed or was
    /// cancelled.
    var holdsBackgroundWork = false

    /// An attempt that could not send its request.
    static func notSent(_ error: DownloadError) -> AttemptEnd {
        AttemptEnd(transferEnd: .failed(error), failedBeforeSending: true)
    }
}
