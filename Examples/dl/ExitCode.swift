import Downstream

/// `dl`'s exit status: one per kind of failure, numbered after wget's where wget has one.
struct ExitCode: Hashable, Comparable, CustomStringConvertible {
    let rawValue: Int32
    /// What it means, for `--help`.
    let meaning: String

    static let success = ExitCode(rawValue: 0, meaning: "every file saved or kept")
    static let generic = ExitCode(
        rawValue: 1, meaning: "another failure: dl could not start, an invalid request, a file another dl has")
    static let usage = ExitCode(rawValue: 2, meaning: "a bad command line or input file")
    static let fileSystem = ExitCode(
        rawValue: 3,
        meaning: "a file error: a file that exists, no space, no permission, larger than --max-filesize,"
            + " binary bytes refused on a terminal (-O -)")
    static let network = ExitCode(rawValue: 4, meaning: "a network failure, also no network or every mirror failed")
    static let certificate = ExitCode(rawValue: 5, meaning: "a server's certificate was refused (as wget's 5)")
    static let authentication = ExitCode(rawValue: 6, meaning: "the server asked for credentials: HTTP 401 or 407")
    static let protocolError = ExitCode(
        rawValue: 7, meaning: "a protocol error: a broken response, a file that changed, a redirect refused")
    static let httpStatus = ExitCode(
        rawValue: 8, meaning: "the server answered with an error status, such as 404 or 500")
    static let integrity = ExitCode(rawValue: 9, meaning: "the file does not have the expected checksum")
    static let interrupted = ExitCode(
        rawValue: 130, meaning: "interrupted (Ctrl-C, SIGTERM, SIGHUP): run the same command again to continue")

    /// Every exit status, in order, for `--help`.
    static let all: [ExitCode] = [
        .success, .generic, .usage, .fileSystem, .network, .certificate, .authentication, .protocolError, .httpStatus,
        .integrity,
        .interrupted,
    ]

    private static let byKind: [DownloadError.Kind: ExitCode] = [
        .fileSystem: .fileSystem, .destinationExists: .fileSystem, .existingFileNotContinued: .fileSystem,
        .insufficientSpace: .fileSystem,
        .fileTooLarge: .fileSystem,
        .network: .network, .networkUnavailable: .network,
        .unexpectedResponse: .protocolError, .serverFileChanged: .protocolError, .redirectRefused: .protocolError,
        .integrityCheckFailed: .integrity, .validationFailed: .integrity, .serverTrustFailed: .certificate,
        .unsupportedAuthentication: .authentication,
    ]

    /// The status for a download that failed with `error`.
    static func failure(_ error: DownloadError) -> ExitCode {
        switch error.kind {
        case .httpStatus:
            return error.statusCode == 401 || error.statusCode == 407 ? .authentication : .httpStatus
        case .allURLsFailed:
            // What the URLs' own failures say: every mirror answering 404 is an HTTP error.
            let codes = error.urlFailures.map { failure($0.error) }
            return codes.isEmpty ? .network : combined(codes)
        default:
            return byKind[error.kind] ?? .generic
        }
    }

    /// The status of a run whose downloads ended with `codes`, by wget's rule: 0 when all
    /// succeeded; otherwise the lowest status but 0 and 1, and 1 when there is no other.
    static func combined(_ codes: [ExitCode]) -> ExitCode {
        let failures = codes.filter { $0 != .success }
        return failures.filter { $0 != .generic }.min() ?? failures.first ?? .success
    }

    static func < (a: ExitCode, b: ExitCode) -> Bool {
        a.rawValue < b.rawValue
    }

    static func == (a: ExitCode, b: ExitCode) -> Bool {
        a.rawValue == b.rawValue
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    var description: String { "\(rawValue)" }
}
