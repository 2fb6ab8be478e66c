import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TransportFailure {
    /// The failure of a URLSession task (a data task, or a system download task) that ended with
    /// `error`: a `URLError`'s own code, or the code of an `NSError` of any domain read as one
    /// (`.unknown` when it is not a known code). The one place where Foundation's errors become
    /// Downstream's.
    init(_ error: any Error) {
        // The initialiser is failable on Linux only; an optional-typed constant suits both.
        let bridged: URLError.Code? = URLError.Code(rawValue: (error as NSError).code)
        self.init(
            code: (error as? URLError)?.code ?? bridged ?? .unknown, reason: (error as NSError).localizedDescription,
            networkUnavailableReason: NetworkUnavailableReason(userInfo: (error as NSError).userInfo))
    }
}

extension DownloadError {
    /// A request ended with the transport's `failure`.
    static func network(_ failure: TransportFailure) -> DownloadError {
        if failure.isTrustRefusal {
            return serverTrustFailed(failure.code, reason: failure.reason)
        }
        return network(failure.code, reason: failure.reason, unavailableReason: failure.networkUnavailableReason)
    }
}
