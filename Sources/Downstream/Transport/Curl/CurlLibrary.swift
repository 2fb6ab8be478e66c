internal import CCurl
import Foundation

/// libcurl, loaded once per process at run time (see the `CCurl` target): FoundationNetworking
/// links `libcurl.so.4`, so it is on every Linux machine where Downstream runs, but its headers
/// are not, and Downstream must not need them.
enum CurlLibrary {
    /// The loaded library's version ("7.88.1"), or why it could not be used.
    static let availability: Result<String, CurlUnavailable> = load()

    /// The environment variable that names another file to load instead of `libcurl.so.4` (a
    /// path; a file that does not exist makes libcurl unavailable, which is how the fallback to
    /// URLSession is tested).
    static let pathVariable = "DOWNSTREAM_LIBCURL"

    private static func load() -> Result<String, CurlUnavailable> {
        #if os(Linux)
            var error = [CChar](repeating: 0, count: 256)
            let path = ProcessInfo.processInfo.environment[pathVariable].flatMap { $0.isEmpty ? nil : $0 }
            let loaded = error.withUnsafeMutableBufferPointer { buffer in
                ds_curl_load(path, buffer.baseAddress, buffer.count)
            }
            guard loaded == 1 else {
                return .failure(
                    CurlUnavailable(
                        reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                )
            }
            // A peer that closes a connection must not end the process: libcurl is told not to use
            // signals (CURLOPT_NOSIGNAL), and TLS libraries may still write to a closed socket.
            signal(SIGPIPE, SIG_IGN)
            return .success(String(cString: ds_curl_version()))
        #else
            return .failure(CurlUnavailable(reason: "the libcurl transport is for Linux"))
        #endif
    }

    /// The largest receive buffer this libcurl takes: 10 MiB since 7.88.0, 512 KiB before.
    static var maximumBufferSize: Int {
        ds_curl_version_number() >= 0x07_58_00 ? 10 << 20 : 512 << 10
    }
}

/// Why libcurl cannot be used: it was not found, is too old, or lacks an entry point.
struct CurlUnavailable: Error, Equatable, Sendable {
    var reason: String
}
