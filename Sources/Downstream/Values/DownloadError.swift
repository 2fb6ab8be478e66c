import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a download failed (or a manager could not start), and what you can do about it.
///
/// `DownloadError` is a struct so that new kinds of failure can be added without breaking your
/// code. Compare its ``kind`` with the static members of ``Kind``, and read the details that
/// belong to the kind (``statusCode``, ``urlErrorCode``, ``path``):
///
/// ```swift
/// do {
///     _ = try await download.fileURL
/// } catch let error as DownloadError where error.kind == .httpStatus {
///     print("The server answered \(error.statusCode!)")
/// }
/// ```
///
/// Unless ``isResumable`` is `false`, the bytes received so far are kept: call
/// ``Download/resume()`` to continue from them.
///
/// To make one, in the tests of code of yours that handles failures, give its kind and details to
/// ``init(_:reason:statusCode:urlErrorCode:path:retryAfter:urlFailures:)``:
///
/// ```swift
/// let notFound = DownloadError(.httpStatus, reason: "Not Found", statusCode: 404)
/// ```
public struct DownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of a ``DownloadError``.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable {
            case httpStatus = "HTTP status"
            case network = "network failure"
            case cancelled = "cancelled"
            case serverFileChanged = "server file changed"
            case unexpectedResponse = "unexpected response"
            case fileSystem = "file system error"
            case destinationExists = "destination exists"
            case invalidRequest = "invalid request"
            case managerUnavailable = "manager unavailable"
            case integrityCheckFailed = "integrity check failed"
            case validationFailed = "validation failed"
            case insufficientSpace = "insufficient space"
            case redirectRefused = "redirect refused"
            case networkUnavailable = "network unavailable"
            case allURLsFailed = "all URLs failed"
            case destinationInUse = "destination in use"
            case serverTrustFailed = "server trust failed"
            case fileTooLarge = "file too large"
            case unsupportedAuthentication = "unsupported authentication"
            case existingFileNotContinued = "existing file not continued"
        }

        fileprivate let code: Code

        /// The server answered with a status code that is not a success (see
        /// ``DownloadError/statusCode``).
        public static let httpStatus = Kind(code: .httpStatus)
        /// The connection failed (see ``DownloadError/urlErrorCode``).
        public static let network = Kind(code: .network)
        /// The download was cancelled.
        public static let cancelled = Kind(code: .cancelled)
        /// The file on the server changed while the download was resuming, and the download was
        /// configured not to start over.
        public static let serverFileChanged = Kind(code: .serverFileChanged)
        /// The server's answer broke HTTP's rules for the request (for example a `Content-Range`
        /// that does not match the range asked for, or a body of the wrong length).
        public static let unexpectedResponse = Kind(code: .unexpectedResponse)
        /// Reading or writing a file failed (see ``DownloadError/path``).
        public static let fileSystem = Kind(code: .fileSystem)
        /// The destination file exists and the destination's ``Destination/ConflictPolicy`` is
        /// ``Destination/ConflictPolicy/fail``.
        public static let destinationExists = Kind(code: .destinationExists)
        /// The request cannot be downloaded (for example a URL that is not HTTP or HTTPS).
        public static let invalidRequest = Kind(code: .invalidRequest)
        /// A ``DownloadManager`` could not start: its identifier or its store is in use, or its
        /// store cannot be created.
        public static let managerUnavailable = Kind(code: .managerUnavailable)
        /// The downloaded file's digest is not the ``DownloadRequest/expectedDigest``, or, for a
        /// request that expects none, not the one its server gave (see
        /// ``DownloadManager/Configuration-swift.struct/Integrity-swift.struct``; the reason names
        /// the header). The file was not delivered; its bytes were deleted or kept as
        /// ``DownloadRequest/onRejectedFile`` says.
        public static let integrityCheckFailed = Kind(code: .integrityCheckFailed)
        /// A validator refused the response or the file (see ``DownloadRequest/checks``). The file
        /// was not delivered; its bytes were deleted or kept as ``DownloadRequest/onRejectedFile``
        /// says.
        public static let validationFailed = Kind(code: .validationFailed)
        /// The file does not fit in the free space of the disk it is written to: known before the
        /// body came (from its announced length) or found when a write failed (`ENOSPC`,
        /// `EDQUOT`). The bytes received are kept; resume once there is room.
        public static let insufficientSpace = Kind(code: .insufficientSpace)
        /// A redirect was refused: too many, a downgrade from HTTPS to HTTP, or your redirect
        /// handler said so.
        public static let redirectRefused = Kind(code: .redirectRefused)
        /// There was no network for longer than
        /// ``DownloadManager/Configuration/Connectivity/maximumWait`` (see
        /// ``DownloadError/urlErrorCode`` for the last failure). The bytes received are kept; resume
        /// when the network is back.
        public static let networkUnavailable = Kind(code: .networkUnavailable)
        /// The request's URL and every one of its ``DownloadRequest/mirrors`` failed (see
        /// ``DownloadError/urlFailures``). The bytes received are kept.
        public static let allURLsFailed = Kind(code: .allURLsFailed)
        /// Another manager of the same store, in another process (the reason names it) or in this
        /// one, is downloading to the same place (see
        /// ``DownloadManager/Configuration-swift.struct/Storage-swift.struct/isSharedByProcesses``).
        /// Nothing was written, and its bytes were not touched: download again once it is done.
        public static let destinationInUse = Kind(code: .destinationInUse)
        /// The server's certificate was refused: not vouched for by a trusted authority, the
        /// wrong name or dates, or a key none of its host's pins match (see ``TrustSettings``;
        /// the reason names the host's rule, and ``DownloadError/urlErrorCode`` says which). The
        /// bytes received are kept.
        public static let serverTrustFailed = Kind(code: .serverTrustFailed)
        /// The file is larger than the request allows (``DownloadRequest/maximumFileSize``): its
        /// announced length, or the bytes its body went on to, possibly after decoding a compressed
        /// body. Nothing past the limit was written; the bytes before it are kept or deleted as
        /// ``DownloadRequest/onRejectedFile`` says (the error's ``DownloadError/path`` names them
        /// when they are kept).
        public static let fileTooLarge = Kind(code: .fileTooLarge)
        /// The server (or a proxy: ``DownloadError/statusCode`` says `401` or `407`) asked for
        /// credentials, your authentication handler answered with a user name and password
        /// (``AuthenticationChallenge/Decision/useCredential(user:password:)``), and the server
        /// offers no scheme Downstream can send them in (NTLM, Negotiate or Bearer only, Digest
        /// with another algorithm than SHA-256 or MD5...; the reason names what it offered). The
        /// password was not sent. An app that can make the header answers with
        /// ``AuthenticationChallenge/Decision/authorization(_:)``.
        public static let unsupportedAuthentication = Kind(code: .unsupportedAuthentication)
        /// The file at the destination, which the download was to continue
        /// (``Destination/ConflictPolicy/continueExisting``), could not be continued: its last
        /// bytes are not the server's, the server's file is not longer, the server sends no ranges,
        /// or it is a folder (the reason says which, and ``DownloadError/path`` names the file). It
        /// was left exactly as it was, and nothing was downloaded: move it away, or choose another
        /// conflict policy, and download again.
        public static let existingFileNotContinued = Kind(code: .existingFileNotContinued)

        public var description: String { code.rawValue }
    }

    /// How one URL of a download failed, for ``Kind/allURLsFailed``.
    public struct URLFailure: Sendable, Hashable, CustomStringConvertible {
        /// The URL.
        public let url: URL
        /// Its last failure.
        public let error: DownloadError

        /// How `url` failed: with `error`, the last time it was tried.
        public init(url: URL, error: DownloadError) {
            self.url = url
            self.error = error
        }

        public var description: String {
            "\(LogText.url(url)): \(error.kind) (\(error.reason))"
        }
    }

    /// The details, in one object: an error is carried in events, states and results of every
    /// download, and a reference keeps them small.
    private final class Details: Sendable, Hashable {
        let kind: Kind
        let statusCode: Int?
        let urlErrorCode: URLError.Code?
        let path: String?
        let retryAfter: Duration?
        let reason: String
        let urlFailures: [URLFailure]
        /// Whether the download had nothing to keep when it failed (a conflict found before the
        /// first byte).
        let keptNothing: Bool
        let networkUnavailableReason: NetworkUnavailableReason?

        init(
            kind: Kind, statusCode: Int?, urlErrorCode: URLError.Code?, path: String?, retryAfter: Duration?,
            reason: String, urlFailures: [URLFailure], keptNothing: Bool,
            networkUnavailableReason: NetworkUnavailableReason?
        ) {
            self.kind = kind
            self.statusCode = statusCode
            self.urlErrorCode = urlErrorCode
            self.path = path
            self.retryAfter = retryAfter
            self.reason = reason
            self.urlFailures = urlFailures
            self.keptNothing = keptNothing
            self.networkUnavailableReason = networkUnavailableReason
        }

        static func == (a: Details, b: Details) -> Bool {
            a === b
                || ((a.kind, a.statusCode, a.urlErrorCode, a.path, a.retryAfter, a.reason)
                    == (b.kind, b.statusCode, b.urlErrorCode, b.path, b.retryAfter, b.reason)
                    && a.urlFailures == b.urlFailures && a.keptNothing == b.keptNothing
                    && a.networkUnavailableReason == b.networkUnavailableReason)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(statusCode)
            hasher.combine(urlErrorCode)
            hasher.combine(path)
            hasher.combine(retryAfter)
            hasher.combine(reason)
            hasher.combine(urlFailures)
            hasher.combine(keptNothing)
            hasher.combine(networkUnavailableReason)
        }
    }

    private let details: Details

    /// What kind of failure this is.
    public var kind: Kind { details.kind }
    /// The HTTP status code, for ``Kind/httpStatus`` and ``Kind/unsupportedAuthentication``.
    public var statusCode: Int? { details.statusCode }
    /// The `URLError` code, for ``Kind/network`` (and the last one, for
    /// ``Kind/networkUnavailable``).
    public var urlErrorCode: URLError.Code? { details.urlErrorCode }
    /// The file involved, for ``Kind/fileSystem``, ``Kind/destinationExists``,
    /// ``Kind/existingFileNotContinued`` and ``Kind/insufficientSpace``; for ``Kind/integrityCheckFailed`` and ``Kind/validationFailed``,
    /// the partial file with the rejected bytes if they were kept.
    public var path: String? { details.path }
    /// How long the server asked to wait before trying again (`Retry-After`), for
    /// ``Kind/httpStatus``.
    public var retryAfter: Duration? { details.retryAfter }
    /// Details in words.
    public var reason: String { details.reason }
    /// How each URL failed, in the order they were tried, for ``Kind/allURLsFailed``.
    public var urlFailures: [URLFailure] { details.urlFailures }
    /// Which policy kept the system from using the network it has, for ``Kind/network`` and
    /// ``Kind/networkUnavailable``: the request (or session) may not use cellular, expensive or
    /// Low Data Mode networks, and that is what there is (Apple platforms; see
    /// ``NetworkAccess``). The download waits for another network instead of failing.
    public var networkUnavailableReason: NetworkUnavailableReason? { details.networkUnavailableReason }

    /// An error of the kind `kind`, with the details that belong to it.
    ///
    /// Downstream makes its own errors; this is for the tests of your code that handles them.
    ///
    /// - Parameters:
    ///   - kind: what kind of failure it is.
    ///   - reason: details in words (for ``Kind/httpStatus``, the status's wording, such as
    ///     `"Not Found"`).
    ///   - statusCode: the HTTP status code, for ``Kind/httpStatus``.
    ///   - urlErrorCode: the `URLError` code, for ``Kind/network`` and ``Kind/networkUnavailable``.
    ///   - path: the file involved (see ``path``).
    ///   - retryAfter: how long the server asked to wait, for ``Kind/httpStatus``.
    ///   - urlFailures: how each URL failed, for ``Kind/allURLsFailed``.
    public init(
        _ kind: Kind, reason: String, statusCode: Int? = nil, urlErrorCode: URLError.Code? = nil,
        path: String? = nil, retryAfter: Duration? = nil, urlFailures: [URLFailure] = []
    ) {
        self.init(
            kind, reason: reason, statusCode: statusCode, urlErrorCode: urlErrorCode, path: path,
            retryAfter: retryAfter, urlFailures: urlFailures, keptNothing: false)
    }

    /// An error with every detail, `keptNothing` included (the factories of `DownloadError+Factories.swift` set it).
    init(
        _ kind: Kind, reason: String, statusCode: Int? = nil, urlErrorCode: URLError.Code? = nil,
        path: String? = nil, retryAfter: Duration? = nil, urlFailures: [URLFailure] = [], keptNothing: Bool,
        networkUnavailableReason: NetworkUnavailableReason? = nil
    ) {
        details = Details(
            kind: kind, statusCode: statusCode, urlErrorCode: urlErrorCode, path: path,
            retryAfter: retryAfter, reason: reason, urlFailures: urlFailures, keptNothing: keptNothing,
            networkUnavailableReason: networkUnavailableReason)
    }

    /// Whether resuming the download can succeed without a change on your side.
    ///
    /// Network failures, server errors (5xx, 408, 429), a changed server file and unexpected
    /// responses are resumable; the bytes received so far are kept for it. A destination that
    /// existed before the first byte came is not: there is nothing to resume.
    public var isResumable: Bool {
        switch kind.code {
        case .network, .serverFileChanged, .unexpectedResponse, .fileSystem, .insufficientSpace,
            .networkUnavailable, .allURLsFailed:
            return true
        case .destinationExists:
            return !details.keptNothing
        case .httpStatus:
            guard let statusCode else { return false }
            return statusCode >= 500 || statusCode == 408 || statusCode == 429
        case .cancelled, .invalidRequest, .managerUnavailable, .integrityCheckFailed, .validationFailed,
            .redirectRefused, .destinationInUse, .serverTrustFailed, .fileTooLarge, .unsupportedAuthentication,
            .existingFileNotContinued:
            return false
        }
    }

    /// Whether ``Download/resume()`` may try again at all: not for a request that cannot be
    /// downloaded, nor for a conflict found before the first byte (that download left nothing, as
    /// one whose existing file was not continued), nor for a place another manager had (this one
    /// has no record of its own).
    var allowsResume: Bool {
        kind != .invalidRequest && kind != .destinationInUse && kind != .existingFileNotContinued
            && !(kind == .destinationExists && details.keptNothing)
    }

    public var description: String {
        switch kind.code {
        case .httpStatus:
            let code = statusCode.map(String.init) ?? "?"
            return "The server answered HTTP \(code) (\(reason)). "
                + (isResumable
                    ? "The server may recover: resume the download later; the bytes received so far are kept."
                    : "Check the URL and the request's headers (for example credentials). The bytes received "
                        + "so far are kept: a new URL for the same file (a fresh link, "
                        + "`Download.setURL(_:)`) continues from them.")
        case .network:
            let code = urlErrorCode.map { String($0.rawValue) } ?? "?"
            return "The connection failed (URLError \(code): \(reason)). "
                + "The bytes received so far are kept: resume the download when the network is back."
        case .cancelled:
            return "The download was cancelled (\(reason))."
        case .serverFileChanged:
            return "The file on the server changed while resuming (\(reason)). "
                + "Resume to start again from the beginning, or cancel the download."
        case .unexpectedResponse:
            return "The server's response was not what the request asked for (\(reason)). "
                + "Nothing was written at a wrong offset; resume to try again."
        case .fileSystem:
            return "A file operation failed at \(path ?? "?") (\(reason)). "
                + "Check free space and permissions, then resume."
        case .existingFileNotContinued:
            return "The file \(path ?? "?") could not be continued (\(reason)). "
                + "It was left as it was, and nothing was downloaded: move it away, or choose another conflict "
                + "policy, and download again."
        case .destinationExists:
            return "The destination \(path ?? "?") already exists and the destination does not allow replacing it. "
                + (details.keptNothing
                    ? "Nothing was downloaded: move the existing file away, or choose another conflict policy, and download again."
                    : "The downloaded data is kept: move the existing file away and resume, or choose another conflict policy.")
        case .invalidRequest:
            return "The request cannot be downloaded (\(reason)). Fix the request and start a new download."
        case .managerUnavailable:
            return "The download manager cannot start: \(reason)."
        case .integrityCheckFailed:
            return "The downloaded file is not the one expected (\(reason)). It was not delivered."
        case .validationFailed:
            return "The download was refused by a validator (\(reason)). The file was not delivered."
        case .insufficientSpace:
            return "There is not enough free space at \(path ?? "?") (\(reason)). "
                + "The bytes received so far are kept: free some space, then resume."
        case .redirectRefused:
            return "A redirect was refused (\(reason))."
        case .networkUnavailable:
            return "There was no network for too long (\(reason)). "
                + "The bytes received so far are kept: resume the download when the network is back."
        case .allURLsFailed:
            return "Every URL of the file failed: "
                + urlFailures.map(\.description).joined(separator: "; ")
                + ". The bytes received so far are kept: resume to try the URLs again."
        case .destinationInUse:
            return
                "\(path ?? "?") is being downloaded by \(reason). Nothing was written: download again once it is done."
        case .serverTrustFailed:
            return "The server's certificate was refused (\(reason)). The bytes received so far are kept: "
                + "check the trust settings, or the server, then resume."
        case .fileTooLarge:
            return "The file is larger than the request allows (\(reason)). It was not delivered"
                + (path.map { "; the bytes before the limit are kept at \($0)." } ?? ".")
        case .unsupportedAuthentication:
            let code = statusCode.map(String.init) ?? "?"
            return "The server asked for credentials (HTTP \(code)) in no scheme Downstream can send a password in "
                + "(\(reason)). The password was not sent: answer with a header your app makes "
                + "(`.authorization(_:)`), or ask for Digest or Basic over HTTPS."
        }
    }
}
