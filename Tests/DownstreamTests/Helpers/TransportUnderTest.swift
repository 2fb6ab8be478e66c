@testable import Downstream
import Foundation

/// The transport the tests' managers use: libcurl on Linux unless `DOWNSTREAM_TRANSPORT=urlsession`
/// (CI runs the suite both ways), as ``DownloadManager/Configuration/Network-swift.struct/TransportChoice/automatic`` decides.
enum TransportUnderTest {
    static let isCurl: Bool = DownloadManager.Configuration.automaticMeansLibcurl && isLibcurlAvailable

    /// Whether the tests run on an Apple platform, where URLSession answers TLS challenges.
    static var isApple: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }

    /// Whether libcurl loads in this process.
    static var isLibcurlAvailable: Bool {
        guard case .success = CurlLibrary.availability else { return false }
        return true
    }

    /// The `URLError` code each transport reports for a connection closed before the body's end:
    /// libcurl says the connection was lost (`CURLE_PARTIAL_FILE`), Linux URLSession says nothing
    /// more precise than `.unknown` (measured). Apple's URLSession says the connection was lost
    /// (documented for `NSURLErrorNetworkConnectionLost`; not measured here).
    static var earlyCloseCode: URLError.Code {
        #if canImport(Darwin)
            .networkConnectionLost
        #else
            isCurl ? .networkConnectionLost : .unknown
        #endif
    }
}
