internal import CCurl
import Foundation

extension CurlRequest {
    /// The answer of a proxy that refused the tunnel with `407`, as the response: libcurl keeps
    /// a CONNECT's head from the receiver and fails the transfer, but the authentication handler
    /// answers a proxy's challenge as it answers a server's. Nil for any other end.
    ///
    /// libcurl does not keep that head's fields either (not even for `curl_easy_header`): its
    /// `Proxy-Authenticate` is made from the schemes libcurl read in it, without parameters
    /// (`Basic, Digest`: no realm).
    func proxyRefusal() -> ServerResponse? {
        guard let easy else { return nil }
        var code = 0
        guard ds_curl_easy_getinfo_long(easy, CurlInfo.httpConnectCode, &code) == CurlCode.ok, code == 407 else {
            return nil
        }
        var offered = 0
        _ = ds_curl_easy_getinfo_long(easy, CurlInfo.proxyAuthenticationOffered, &offered)
        // CURLAUTH_BASIC, _DIGEST, _NEGOTIATE, _NTLM, and _BEARER (1 << 6).
        let schemes = [(1, "Basic"), (2, "Digest"), (4, "Negotiate"), (8, "NTLM"), (64, "Bearer")]
            .filter { offered & $0.0 != 0 }.map(\.1)
        let headers = schemes.isEmpty ? [:] : ["Proxy-Authenticate": schemes.joined(separator: ", ")]
        return ServerResponse(url: currentURL, statusCode: 407, headers: headers)
    }
}
