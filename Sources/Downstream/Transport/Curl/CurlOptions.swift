/// The libcurl numbers the transport uses: options (`CURLOPT_*`), infos (`CURLINFO_*`), result
/// codes (`CURLcode`) and pause bits. They are libcurl's ABI: they never change between versions
/// (`include/curl/curl.h`).
enum CurlOption {
    static let writeData: Int32 = 10001
    static let url: Int32 = 10002
    static let proxy: Int32 = 10004
    static let proxyUserName: Int32 = 10175
    static let proxyPassword: Int32 = 10176
    static let noProxy: Int32 = 10177
    static let errorBuffer: Int32 = 10010
    static let writeFunction: Int32 = 20011
    static let lowSpeedLimit: Int32 = 19
    static let lowSpeedTime: Int32 = 20
    static let httpHeader: Int32 = 10023
    /// `CURLOPT_PROXYHEADER` (7.37.0): headers of a CONNECT only, by default since 7.42.1.
    static let proxyHeader: Int32 = 10228
    static let headerData: Int32 = 10029
    static let customRequest: Int32 = 10036
    static let noProgress: Int32 = 43
    static let noBody: Int32 = 44
    static let followLocation: Int32 = 52
    static let postFieldSize: Int32 = 60
    static let headerFunction: Int32 = 20079
    static let bufferSize: Int32 = 98
    static let sslVerifyPeer: Int32 = 64
    static let sslVerifyHost: Int32 = 81
    static let caInfo: Int32 = 10065
    static let sslCertificate: Int32 = 10025
    static let keyPassword: Int32 = 10026
    static let sslCertificateType: Int32 = 10086
    static let sslKey: Int32 = 10087
    static let caPath: Int32 = 10097
    static let pinnedPublicKey: Int32 = 10230
    /// `CURLOPT_SSLCERT_BLOB`, `CURLOPT_SSLKEY_BLOB` (7.71.0)
    static let sslCertificateBlob: Int32 = 40291
    static let sslKeyBlob: Int32 = 40292
    /// `CURLOPT_IPRESOLVE`: 0 whatever, 1 IPv4 only, 2 IPv6 only.
    static let ipResolve: Int32 = 113
    static let noSignal: Int32 = 99
    static let connectTimeoutMilliseconds: Int32 = 156
    static let copyPostFields: Int32 = 10165
    static let tcpKeepAlive: Int32 = 213
    /// `CURLOPT_SUPPRESS_CONNECT_HEADERS` (7.54.0)
    static let suppressConnectHeaders: Int32 = 265
}

enum CurlMultiOption {
    static let maximumHostConnections: Int32 = 7
}

enum CurlInfo {
    static let effectiveURL: Int32 = 0x10_0001
    static let osErrno: Int32 = 0x20_0019
    /// `CURLINFO_HTTP_CONNECTCODE`: the status of a proxy's answer to CONNECT.
    static let httpConnectCode: Int32 = 0x20_0016
    /// `CURLINFO_PROXYAUTH_AVAIL`: the schemes a proxy's `407` offered (`CURLAUTH_*` bits).
    static let proxyAuthenticationOffered: Int32 = 0x20_0018
    /// `CURLINFO_PRETRANSFER_TIME_T` (7.61.0): microseconds from the start until the request was
    /// about to be sent; 0 until connected.
    static let pretransferTime: Int32 = 0x60_0035
}

/// `CURLcode` values the transport tells apart.
enum CurlCode {
    static let ok: Int32 = 0
    static let unsupportedProtocol: Int32 = 1
    static let urlMalformat: Int32 = 3
    static let couldNotResolveProxy: Int32 = 5
    static let couldNotResolveHost: Int32 = 6
    static let couldNotConnect: Int32 = 7
    static let weirdServerReply: Int32 = 8
    static let http2: Int32 = 16
    static let partialFile: Int32 = 18
    static let writeError: Int32 = 23
    static let outOfMemory: Int32 = 27
    static let operationTimedOut: Int32 = 28
    static let sslConnectError: Int32 = 35
    static let abortedByCallback: Int32 = 42
    static let tooManyRedirects: Int32 = 47
    static let gotNothing: Int32 = 52
    static let sendError: Int32 = 55
    static let receiveError: Int32 = 56
    static let sslCertificateProblem: Int32 = 58
    static let peerFailedVerification: Int32 = 60
    static let sslCACertificateBadFile: Int32 = 77
    static let sslPinnedPublicKeyMismatch: Int32 = 90
    static let badContentEncoding: Int32 = 61
    static let http2Stream: Int32 = 92
}

/// `curl_easy_pause` bitmasks, and what a write callback returns to pause.
enum CurlPause {
    /// `CURLPAUSE_CONT`: receive and send again.
    static let resume: Int32 = 0
    /// `CURL_WRITEFUNC_PAUSE`, returned by the write callback.
    static let fromWriteCallback = 0x1000_0001
}
