import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// How Downstream makes its errors: one function per kind, which words the reason. (Your code
// makes them with `init(_:reason:…)`, and tells them apart by `kind`.)
extension DownloadError {
    /// The server answered with status `code`, asking to wait `retryAfter` before trying again
    /// if it said so.
    static func httpStatus(_ code: Int, retryAfter: Duration? = nil) -> DownloadError {
        DownloadError(
            .httpStatus, reason: HTTPURLResponse.localizedString(forStatusCode: code), statusCode: code,
            retryAfter: retryAfter)
    }

    /// The server (or proxy) that answered `statusCode` asks for credentials in no scheme a
    /// password can be sent in; `offered` says what it offers.
    static func unsupportedAuthentication(statusCode: Int, offered: String) -> DownloadError {
        DownloadError(
            .unsupportedAuthentication,
            reason: "\(offered); Downstream sends a password with Digest (SHA-256, MD5) or Basic only",
            statusCode: statusCode)
    }

    /// The server's certificate was refused (`code` says how).
    static func serverTrustFailed(_ code: URLError.Code, reason: String) -> DownloadError {
        DownloadError(.serverTrustFailed, reason: reason, urlErrorCode: code, keptNothing: false)
    }

    /// The connection failed with `URLError` code `code`.
    static func network(
        _ code: URLError.Code, reason: String = "", unavailableReason: NetworkUnavailableReason? = nil
    ) -> DownloadError {
        DownloadError(
            .network, reason: reason.isEmpty ? "code \(code.rawValue)" : reason, urlErrorCode: code, keptNothing: false,
            networkUnavailableReason: unavailableReason)
    }

    /// The download was cancelled.
    static let cancelled = DownloadError(.cancelled, reason: "by request")

    /// The server's file changed while the download was resuming.
    static func serverFileChanged(_ reason: String) -> DownloadError {
        DownloadError(.serverFileChanged, reason: reason)
    }

    /// The server's response did not match the request.
    static func unexpectedResponse(_ reason: String) -> DownloadError {
        DownloadError(.unexpectedResponse, reason: reason)
    }

    /// A file operation at `path` failed.
    static func fileSystem(path: String, reason: String) -> DownloadError {
        DownloadError(.fileSystem, reason: reason, path: path)
    }

    /// The destination file at `path` exists and may not be replaced.
    static func destinationExists(path: String) -> DownloadError {
        DownloadError(.destinationExists, reason: "file exists", path: path)
    }

    /// The destination file at `path` existed before the first byte came: nothing was downloaded.
    static func destinationExistsBeforeDownloading(path: String) -> DownloadError {
        DownloadError(
            .destinationExists, reason: "the file existed before the download started", path: path,
            keptNothing: true)
    }

    /// The file at `path`, which the download was to continue
    /// (``Destination/ConflictPolicy/continueExisting``), is not the start of the server's file,
    /// or cannot be continued (`reason` says why): it was left as it was, and nothing was
    /// downloaded.
    static func existingFileNotContinued(path: String, reason: String) -> DownloadError {
        DownloadError(.existingFileNotContinued, reason: reason, path: path, keptNothing: true)
    }

    /// There was no network for `duration`; `lastError` is the failure that began the wait.
    static func networkUnavailable(for duration: Duration, lastError: DownloadError) -> DownloadError {
        DownloadError(
            .networkUnavailable, reason: "waited \(duration) for the network after: \(lastError.reason)",
            urlErrorCode: lastError.urlErrorCode, keptNothing: false,
            networkUnavailableReason: lastError.networkUnavailableReason)
    }

    /// Every URL of a download failed: `failures`, in the order they were tried.
    static func allURLsFailed(_ failures: [URLFailure]) -> DownloadError {
        DownloadError(
            .allURLsFailed, reason: "\(failures.count) URLs failed", urlFailures: failures)
    }

    /// The request cannot be downloaded.
    static func invalidRequest(_ reason: String) -> DownloadError {
        DownloadError(.invalidRequest, reason: reason)
    }

    /// The file's digest is not the expected one; its bytes are at `path` if they were kept.
    /// `source` says where the expected one comes from when it is not the request's ("the
    /// server's Repr-Digest").
    static func integrityCheckFailed(
        expected: Digest, actual: String, path: String?, source: String? = nil
    ) -> DownloadError {
        let reason =
            if let source {
                "\(source) says \(expected), the file has \(actual)"
            } else {
                "expected \(expected), got \(actual)"
            }
        return DownloadError(.integrityCheckFailed, reason: reason, path: path)
    }

    /// A validator refused the download; its bytes are at `path` if they were kept.
    static func validationFailed(_ reason: String, path: String?) -> DownloadError {
        DownloadError(.validationFailed, reason: reason, path: path)
    }

    /// The file is larger than the request's limit; its bytes are at `path` if they were kept.
    static func fileTooLarge(_ reason: String, path: String?) -> DownloadError {
        DownloadError(.fileTooLarge, reason: reason, path: path)
    }

    /// The file does not fit on the disk that holds `path`.
    static func insufficientSpace(path: String, reason: String) -> DownloadError {
        DownloadError(.insufficientSpace, reason: reason, path: path)
    }

    /// A redirect was refused.
    static func redirectRefused(_ reason: String) -> DownloadError {
        DownloadError(.redirectRefused, reason: reason)
    }

    /// A download manager cannot start.
    /// Another manager sharing the store downloads to `path`: `holder` says which.
    static func destinationInUse(path: String, by holder: String) -> DownloadError {
        DownloadError(.destinationInUse, reason: holder, path: path)
    }

    static func managerUnavailable(_ reason: String) -> DownloadError {
        DownloadError(.managerUnavailable, reason: reason)
    }
}
