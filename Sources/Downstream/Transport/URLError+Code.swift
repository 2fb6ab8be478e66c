import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError.Code {
    /// The `URLError` code of an error a URLSession task ended with: a `URLError`'s own, or the
    /// code of an `NSError` of any domain read as one (`.unknown` when it is not a known code).
    init(of error: any Error) {
        // The initialiser is failable on Linux only; an optional-typed constant suits both.
        let bridged: URLError.Code? = URLError.Code(rawValue: (error as NSError).code)
        self = (error as? URLError)?.code ?? bridged ?? .unknown
    }
}
