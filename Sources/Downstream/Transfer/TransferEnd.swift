import Foundation

/// How one request of a download (an attempt) ended, as its transfer reports it.
enum TransferEnd: Equatable, Sendable {
    /// The partial file holds the whole file.
    case finished
    /// The range asked for (or a shorter one the server chose) is on disk; the next request
    /// continues after it. `progressed` says whether this request wrote any byte.
    case incomplete(progressed: Bool)
    /// Stopped on request.
    case cancelled
    /// The system stopped the request on its own (a background task cancelled because the user
    /// force-quit the app, say): the download pauses, with its bytes and resume data.
    case stoppedBySystem(reason: String)
    /// The response could not be used; ask again from the first byte.
    case restart(reason: String)
    case failed(DownloadError)
    /// The server asked for credentials; the download's authentication handler answers before
    /// this reaches the download's state machine, which takes an unanswered one as a failure.
    case challenged(AuthenticationChallenge)
    /// The file at the destination (this URL) already is the file: nothing was downloaded.
    case destinationIsCurrent(URL)
}
