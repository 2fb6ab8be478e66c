internal import CCurl
import Foundation

extension CurlRequest {
    /// Sets the trust options of the request's host (``CurlTrust``). An option libcurl does not
    /// take fails the request, naming it: a check asked for is never dropped.
    func applyTrust(_ options: CurlTrust.Options, host: String, to easy: OpaquePointer) throws(TransportFailure) {
        trustRule = options.rule
        func set(_ option: Int32, _ name: String, _ value: String?, code: URLError.Code) throws(TransportFailure) {
            let result = ds_curl_easy_setopt_pointer(easy, option, value)
            guard result == CurlCode.ok else { throw Self.refusedOption(name, result, code: code, rule: options.rule) }
        }
        if let file = options.caFile { try set(CurlOption.caInfo, "CAINFO", file, code: .serverCertificateUntrusted) }
        if let directory = options.caDirectory {
            try set(CurlOption.caPath, "CAPATH", directory, code: .serverCertificateUntrusted)
        }
        if options.usesOnlyCAFile {
            // A libcurl that cannot read a directory has none to turn off.
            _ = ds_curl_easy_setopt_pointer(easy, CurlOption.caPath, nil)
        }
        if let pins = options.pins {
            try set(CurlOption.pinnedPublicKey, "PINNEDPUBLICKEY", pins, code: .serverCertificateUntrusted)
        }
        if var identity = options.clientIdentity {
            if case .provided = identity.format {
                guard let provided = providedIdentity, provided.host == host else {
                    throw TransportFailure(
                        code: .clientCertificateRequired, reason: "no identity was provided for \(host)")
                }
                identity = provided.identity
            }
            try applyIdentity(identity, rule: options.rule, to: easy)
        }
        if !options.verifies {
            _ = ds_curl_easy_setopt_long(easy, CurlOption.sslVerifyPeer, 0)
            _ = ds_curl_easy_setopt_long(easy, CurlOption.sslVerifyHost, 0)
        }
    }

    /// Sets a client certificate and key: files by name, bytes as blobs (libcurl 7.71.0).
    private func applyIdentity(_ identity: ClientIdentity, rule: String?, to easy: OpaquePointer)
        throws(TransportFailure)
    {
        func set(_ material: ClientIdentity.Material, file: Int32, blob: Int32, _ name: String) throws(TransportFailure)
        {
            let result: Int32
            switch material {
            case .file(let url):
                result = ds_curl_easy_setopt_pointer(easy, file, url.path)
            case .data(let data):
                result = data.withUnsafeBytes { ds_curl_easy_setopt_blob(easy, blob, $0.baseAddress, $0.count) }
            }
            guard result == CurlCode.ok else {
                throw Self.refusedOption(name, result, code: .clientCertificateRequired, rule: rule)
            }
        }
        switch identity.format {
        case .pem(let certificate, let key):
            try set(certificate, file: CurlOption.sslCertificate, blob: CurlOption.sslCertificateBlob, "SSLCERT")
            try set(key, file: CurlOption.sslKey, blob: CurlOption.sslKeyBlob, "SSLKEY")
        case .pkcs12(let material):
            try set(material, file: CurlOption.sslCertificate, blob: CurlOption.sslCertificateBlob, "SSLCERT")
            _ = ds_curl_easy_setopt_pointer(easy, CurlOption.sslCertificateType, "P12")
        case .provided:
            throw TransportFailure(
                code: .clientCertificateRequired, reason: "a provided client identity gave another provided one")
        #if canImport(Darwin)
            case .keychain:
                throw TransportFailure(
                    code: .clientCertificateRequired,
                    reason: "a keychain identity is for URLSession; libcurl takes PEM or PKCS#12")
        #endif
        }
        if let password = identity.password {
            _ = ds_curl_easy_setopt_pointer(easy, CurlOption.keyPassword, password)
        }
    }

    /// The failure of a request whose option `name` libcurl refused with `result`.
    private static func refusedOption(_ name: String, _ result: Int32, code: URLError.Code, rule: String?)
        -> TransportFailure
    {
        TransportFailure(
            code: code,
            reason: "libcurl \(CurlLibrary.versionText) cannot set CURLOPT_\(name): "
                + String(cString: ds_curl_easy_strerror(result)) + (rule.map { " (\($0))" } ?? ""))
    }
}
