import Foundation

/// How a download ended, as response handlers get it (see ``Download/response(_:)``).
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
