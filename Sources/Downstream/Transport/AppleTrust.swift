#if canImport(Darwin)
    import Foundation
    import Security

    /// A URLSession's answers to TLS challenges on Apple platforms, by the rule of the challenge's
    /// host: the server's `SecTrust` evaluated with the rule's authorities and its key compared
    /// with the rule's pins (``TrustRule/verdict(host:chainFailure:leafPin:)`` decides), and the
    /// rule's client identity as a credential. Used by the transport's session and by the
    /// background session.
    struct AppleTrust: Sendable {
        let settings: TrustSettings
        /// Whether a client certificate may be shown (not by a background session).
        let showsClientIdentity: Bool

        /// Answers `challenge`; a refusal's failure goes to `refused` before the challenge is
        /// cancelled, so that the task ends with it rather than with a cancellation.
        func answer(
            _ challenge: URLAuthenticationChallenge, refused: @escaping @Sendable (TransportFailure) -> Void,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let host = challenge.protectionSpace.host
            let rule = settings.rule(for: host)
            switch challenge.protectionSpace.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust:
                let serverTrust: SecTrust? = challenge.protectionSpace.serverTrust
                guard let rule, let serverTrust else { return completionHandler(.performDefaultHandling, nil) }
                switch Self.verdict(on: serverTrust, host: host, rule: rule) {
                case .trusted:
                    completionHandler(.useCredential, URLCredential(trust: serverTrust))
                case .refused(let reason):
                    refused(TransportFailure(code: .serverCertificateUntrusted, reason: reason))
                    completionHandler(.cancelAuthenticationChallenge, nil)
                }
            case NSURLAuthenticationMethodClientCertificate:
                guard showsClientIdentity, let identity = rule?.clientIdentity else {
                    return completionHandler(.performDefaultHandling, nil)
                }
                Task {
                    do throws(DownloadError) {
                        let credential = try Self.credential(for: try await identity.resolved(forHost: host))
                        completionHandler(.useCredential, credential)
                    } catch {
                        refused(TransportFailure(clientIdentity: error))
                        completionHandler(.cancelAuthenticationChallenge, nil)
                    }
                }
            default:
                completionHandler(.performDefaultHandling, nil)
            }
        }

        /// `trust` evaluated with `rule`'s authorities, then its pins.
        static func verdict(on trust: SecTrust, host: String, rule: TrustRule) -> ServerTrustVerdict {
            guard !rule.acceptsAnyCertificate else { return .trusted }
            var chainFailure: String?
            if !rule.additionalAuthorities.isEmpty {
                do throws(DownloadError) {
                    var anchors: [SecCertificate] = []
                    for authority in rule.additionalAuthorities {
                        for der in try authority.derCertificates() {
                            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                                throw .invalidRequest("an authority of the rule is not a certificate")
                            }
                            anchors.append(certificate)
                        }
                    }
                    // Anchors of our own replace the system's unless told otherwise after them.
                    _ = SecTrustSetAnchorCertificates(trust, anchors as CFArray)
                    _ = SecTrustSetAnchorCertificatesOnly(trust, rule.trustsOnlyAdditionalAuthorities)
                } catch {
                    chainFailure = error.reason
                }
            }
            var error: CFError?
            if chainFailure == nil, !SecTrustEvaluateWithError(trust, &error) {
                chainFailure = error.map { ($0 as Error).localizedDescription } ?? "the system does not trust it"
            }
            return rule.verdict(host: host, chainFailure: chainFailure, leafPin: leafPin(of: trust))
        }

        /// The pin of the key of the server's own certificate; nil when it cannot be read.
        static func leafPin(of trust: SecTrust) -> PublicKeyPin? {
            guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate], let leaf = chain.first,
                let key = SecCertificateCopyKey(leaf), let attributes = SecKeyCopyAttributes(key) as? [String: Any],
                let type = attributes[kSecAttrKeyType as String] as? String,
                let size = attributes[kSecAttrKeySizeInBits as String] as? Int,
                let bytes = SecKeyCopyExternalRepresentation(key, nil) as Data?
            else { return nil }
            let algorithm: SubjectPublicKeyInfo.Algorithm
            if type == kSecAttrKeyTypeRSA as String {
                algorithm = .rsa
            } else if type == kSecAttrKeyTypeECSECPrimeRandom as String {
                algorithm = .ellipticCurve
            } else {
                return nil
            }
            return SubjectPublicKeyInfo.der(algorithm, sizeInBits: size, key: [UInt8](bytes)).map {
                PublicKeyPin(subjectPublicKeyInfo: $0)
            }
        }

        /// `identity` as URLSession takes it: a keychain identity, or PKCS#12 bytes imported.
        static func credential(for identity: ClientIdentity) throws(DownloadError) -> URLCredential {
            switch identity.format {
            case .keychain(let keychain):
                return URLCredential(
                    identity: keychain.identity, certificates: keychain.certificates, persistence: .forSession)
            case .pkcs12(let material):
                let data = try material.bytes()
                var items: CFArray?
                let options = [kSecImportExportPassphrase as String: identity.password ?? ""]
                let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
                guard status == errSecSuccess, let item = (items as? [[String: Any]])?.first,
                    let found = item[kSecImportItemIdentity as String]
                else {
                    throw .invalidRequest("the PKCS#12 client identity cannot be read (Security's status \(status))")
                }
                let chain = (item[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
                // Security gives the chain from the identity's own certificate; only the others go.
                return URLCredential(
                    identity: found as! SecIdentity, certificates: Array(chain.dropFirst()), persistence: .forSession)
            case .pem:
                throw .invalidRequest(
                    "a PEM client identity cannot be shown over URLSession: give PKCS#12 or a keychain identity")
            case .provided:
                throw .invalidRequest("a provided client identity gave another provided one")
            }
        }
    }
#endif
