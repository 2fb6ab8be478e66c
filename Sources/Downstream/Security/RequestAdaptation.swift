import Foundation

/// What an app's request adapter (``AuthenticationSettings/requestAdapter``) is asked about: the
/// download whose attempt is about to send its requests, and where to.
public struct RequestAdaptation: Sendable {
    /// The download.
    public var downloadID: DownloadID
    /// What the download asks for: its URL, the headers it keeps, its metadata (which is stored,
    /// and can name the credentials to use).
    public var request: DownloadRequest
    /// The URL the attempt asks for: the request's, a mirror's or a fresh one.
    public var url: URL

    /// An adaptation of `request`'s download `downloadID`, whose attempt asks for `url`.
    public init(downloadID: DownloadID, request: DownloadRequest, url: URL) {
        self.downloadID = downloadID
        self.request = request
        self.url = url
    }

    /// Asks `adapter` for the headers of the attempt: checked as every header is (see
    /// ``HeaderField``), a failure made a ``DownloadError``.
    func headers(
        from adapter: @Sendable (RequestAdaptation) async throws -> [String: String]
    ) async -> Result<[String: String], DownloadError> {
        do {
            let headers = try await adapter(self)
            if let problem = HeaderField.problem(in: headers) {
                return .failure(.invalidRequest("the request adapter's headers: \(problem)"))
            }
            return .success(headers)
        } catch let error as DownloadError {
            return .failure(error)
        } catch {
            return .failure(.invalidRequest("the request adapter failed: \(error)"))
        }
    }
}
