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
            // SIGPIPE is blocked on the transport's own thread (CurlTransport.Driver), not ignored
            // by the process.
            return .success(String(cString: ds_curl_version()))
        #else
            return .failure(CurlUnavailable(reason: "the libcurl transport is for Linux"))
        #endif
    }

    /// The version and the TLS library, for people: "7.88.1 with OpenSSL/3.0.11".
    static var versionText: String {
        let tls = String(cString: ds_curl_ssl_version())
        return String(cString: ds_curl_version()) + (tls.isEmpty ? " without TLS" : " with \(tls)")
    }

    /// The connection settings the loaded libcurl and its TLS library apply, found once by
    /// setting each option on an easy handle: a TLS library without a feature makes libcurl
    /// refuse its option (`CURLE_NOT_BUILT_IN`), and an older libcurl does not know it
    /// (`CURLE_UNKNOWN_OPTION`). A request that needs a setting missing here fails at once,
    /// naming it.
    static let connectionSettings: Set<ConnectionSetting> = probeConnectionSettings()

    private static func probeConnectionSettings() -> Set<ConnectionSetting> {
        guard case .success = availability, let easy = ds_curl_easy_init() else { return [] }
        defer { ds_curl_easy_cleanup(easy) }
        var settings: Set<ConnectionSetting> = [.connectionTimeout, .addressFamily]
        func takes(_ option: Int32, _ value: String) -> Bool {
            ds_curl_easy_setopt_pointer(easy, option, value) == CurlCode.ok
        }
        if takes(CurlOption.proxy, "http://127.0.0.1:9") { settings.insert(.proxy) }
        // CURL_VERSION_HTTPS_PROXY (7.52.0).
        if settings.contains(.proxy), ds_curl_features() & (1 << 21) != 0 {
            settings.insert(.proxyOverTLSOrWithCredentials)
        }
        guard !String(cString: ds_curl_ssl_version()).isEmpty else { return settings }
        settings.insert(.acceptingAnyCertificate)
        if takes(CurlOption.caInfo, "/nonexistent/ca.pem") { settings.insert(.trustAuthorities) }
        if takes(CurlOption.pinnedPublicKey, "sha256//" + Data(count: 32).base64EncodedString()) {
            settings.insert(.publicKeyPins)
        }
        if takes(CurlOption.sslCertificate, "/nonexistent/client.pem") {
            settings.formUnion([.pemClientIdentity, .pkcs12ClientIdentity, .providedClientIdentity])
        }
        let blob: [UInt8] = [0x30, 0x00]
        let takesBlobs = [CurlOption.sslCertificateBlob, CurlOption.sslKeyBlob].allSatisfy { option in
            blob.withUnsafeBytes { ds_curl_easy_setopt_blob(easy, option, $0.baseAddress, $0.count) } == CurlCode.ok
        }
        if takesBlobs { settings.insert(.clientIdentityData) }
        return settings
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
