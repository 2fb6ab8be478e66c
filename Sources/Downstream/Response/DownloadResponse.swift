import Foundation

/// How a download ended, as response handlers get it (see ``Download/response(_:)``): the
/// delivered file or the error, with the download's identity, its request and the last
/// ``ServerResponse`` whose body was written.
///
/// A ``ServerResponse`` is what the server answered to one request (a status and headers); a
/// `DownloadResponse` is the end of the whole download, which may have taken many requests, or
/// failed before any response came (then ``response`` is nil).
public struct DownloadResponse: Sendable {
    /// The download's identity.
    public var downloadID: DownloadID
    /// What was downloaded, and where to.
    public var request: DownloadRequest
    /// The head of the last response whose body was written, if one came.
    public var response: ServerResponse?
    /// The delivered file, or why the download failed or was cancelled.
    public var result: Result<URL, DownloadError>

    /// The delivered file, if the download completed.
    public var fileURL: URL? { try? result.get() }

    /// Why the download did not complete, if it did not.
    public var error: DownloadError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}
