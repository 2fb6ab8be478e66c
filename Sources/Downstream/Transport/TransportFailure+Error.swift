import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransportFailure {
    /// The failure of a URLSession task (a data task, or a system download task) that ended with
    /// `error`: a `URLError`'s own code, or the code of an `NSError` of any domain read as one
    /// (`.unknown` when it is not a known code). The one place where Foundation's errors become
    /// Downstream's. A `TransportFailure` (what a challenge refused) is itself.
    init(_ error: any Error) {
        if let failure = error as? TransportFailure {
            self = failure
            return
        }
        // The initialiser is failable on Linux only; an optional-typed constant suits both.
        let bridged: URLError.Code? = URLError.Code(rawValue: (error as NSError).code)
        var reason = (error as NSError).localizedDescription
        var code = (error as? URLError)?.code ?? bridged ?? .unknown
        if code == .unknown || code == .networkConnectionLost, Self.isClientCertificateRefusal(reason) {
            code = .clientCertificateRequired
        } else if Self.isBrokenResponse(reason) {
            // libcurl's refusals of what a server sent, which Foundation reports in its words.
            code = .cannotParseResponse
            reason = Self.brokenResponseReason(reason)
        } else if code == .unknown, Self.isCertificateRefusal(reason) {
            // swift-corelibs-foundation maps libcurl's certificate failures to `.unknown`, with
            // libcurl's words as the description: they are the only sign.
            code = .serverCertificateUntrusted
        }
        self.init(
            code: code, reason: reason,
            networkUnavailableReason: NetworkUnavailableReason(userInfo: (error as NSError).userInfo))
    }

    /// A client identity that could not be had (`error`: a file that cannot be read, a provider
    /// that threw): the server's wish for a certificate goes unmet.
    init(clientIdentity error: DownloadError) {
        self.init(code: .clientCertificateRequired, reason: error.reason)
    }

    /// Whether TLS words (`reason`, libcurl's with OpenSSL's) say the server wants a client
    /// certificate, or refused the one shown: its alert comes after the handshake in TLS 1.3,
    /// as a failed read.
    static func isClientCertificateRefusal(_ reason: String) -> Bool {
        ["alert certificate required", "alert bad certificate", "alert unknown ca"].contains { reason.contains($0) }
    }

    /// Whether libcurl's words (`reason`) say that the response broke HTTP's framing: a head too
    /// large (libcurl takes 300 KB, a line 100 KB: longer, it says "Out of memory"), a chunk size
    /// no integer holds or otherwise malformed chunks. Not a network failure: a retry gets the
    /// same answer.
    static func isBrokenResponse(_ reason: String) -> Bool {
        ["Too large response headers", "in chunked-encoding", "Header too large", "Out of memory"].contains {
            reason.contains($0)
        }
    }

    /// libcurl's words for a broken response, said plainly: its "Out of memory" is a header line
    /// longer than it takes; its "Too large response headers: 307275 > 307200" a head larger than
    /// it takes (300 KiB).
    static func brokenResponseReason(_ reason: String) -> String {
        if reason.contains("Out of memory") {
            return "a header line of the response is longer than libcurl takes (100 KB)"
        }
        if let range = reason.range(of: "Too large response headers: "),
            let limit = reason[range.upperBound...].split(separator: ">").last.flatMap({ Int($0.trimmingWhitespace) })
        {
            return "the server's response head is larger than \(limit >> 10) KiB"
        }
        return reason
    }

    /// Whether libcurl's words (`reason`) say the server's certificate was refused.
    static func isCertificateRefusal(_ reason: String) -> Bool {
        ["SSL certificate problem", "SSL peer certificate", "SSL: no alternative certificate subject name"].contains {
            reason.contains($0)
        }
    }
}

extension DownloadError {
    /// Why a connection could not be made without a file descriptor (`number`: `EMFILE` or
    /// `ENFILE`), with the limit that was reached.
    static func descriptorShortageReason(_ number: Int32) -> String {
        let words = "too many open files: no socket for the connection (errno \(number))"
        guard number == EMFILE else { return words + ": the system's table of open files is full" }
        // Only the libcurl transport, on Linux, tells a descriptor shortage.
        #if os(Linux)
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return words }
            return words + ": the process has all \(limit.rlim_cur) it may have open (ulimit -n)"
        #else
            return words
        #endif
    }

    /// A request ended with the transport's `failure`.
    static func network(_ failure: TransportFailure) -> DownloadError {
        if let shortage = failure.descriptorShortage {
            // The process's own limit, not the network: a file system error (as for a partial
            // file that cannot be opened for the same reason), not retried.
            return DownloadError(.fileSystem, reason: descriptorShortageReason(shortage))
        }
        if failure.isTrustRefusal {
            return serverTrustFailed(failure.code, reason: failure.reason)
        }
        if [.cannotParseResponse, .cannotDecodeContentData, .cannotDecodeRawData].contains(failure.code) {
            // What the server sent is broken, not the network: a protocol error, not retried.
            return .unexpectedResponse("the response cannot be read: \(failure.reason)")
        }
        return network(failure.code, reason: failure.reason, unavailableReason: failure.networkUnavailableReason)
    }
}
