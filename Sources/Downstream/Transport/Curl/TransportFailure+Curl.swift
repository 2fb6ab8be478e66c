import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransportFailure {
    /// The failure of a libcurl transfer that ended with `code`, in the words of `URLError`
    /// (FoundationNetworking's own mapping, and more); `osErrno` is the `errno` of a failed connect,
    /// or of a socket that could not be made.
    init(curlCode code: Int32, osErrno: Int32, message: String) {
        let urlCode: URLError.Code
        switch code {
        case _ where Self.isClientCertificateRefusal(message): urlCode = .clientCertificateRequired
        case _ where Self.isBrokenResponse(message): urlCode = .cannotParseResponse
        case _ where osErrno == ECONNREFUSED: urlCode = .cannotConnectToHost
        case CurlCode.operationTimedOut: urlCode = .timedOut
        case CurlCode.couldNotConnect: urlCode = osErrno == ETIMEDOUT ? .timedOut : .cannotConnectToHost
        case CurlCode.couldNotResolveHost, CurlCode.couldNotResolveProxy: urlCode = .cannotFindHost
        case CurlCode.sendError, CurlCode.receiveError, CurlCode.partialFile, CurlCode.http2, CurlCode.http2Stream:
            urlCode = .networkConnectionLost
        case CurlCode.gotNothing, CurlCode.weirdServerReply: urlCode = .badServerResponse
        case CurlCode.tooManyRedirects: urlCode = .httpTooManyRedirects
        case CurlCode.unsupportedProtocol: urlCode = .unsupportedURL
        case CurlCode.urlMalformat: urlCode = .badURL
        case CurlCode.badContentEncoding: urlCode = .cannotDecodeContentData
        case CurlCode.peerFailedVerification, CurlCode.sslPinnedPublicKeyMismatch: urlCode = .serverCertificateUntrusted
        case CurlCode.sslCACertificateBadFile: urlCode = .serverCertificateUntrusted
        case CurlCode.sslCertificateProblem: urlCode = .clientCertificateRejected
        case CurlCode.sslConnectError: urlCode = .secureConnectionFailed
        default: urlCode = .unknown
        }
        self.init(code: urlCode, reason: urlCode == .cannotParseResponse ? Self.brokenResponseReason(message) : message)
        if code == CurlCode.couldNotConnect, osErrno == EMFILE || osErrno == ENFILE {
            // libcurl says "Couldn't connect" also when it could not make the socket.
            descriptorShortage = osErrno
        }
    }
}
