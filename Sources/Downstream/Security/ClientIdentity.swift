import Foundation

/// A client certificate and its private key, for servers that ask for one (mutual TLS).
///
/// What each transport takes:
///
/// | Identity | libcurl (Linux) | URLSession (Apple platforms) |
/// | --- | --- | --- |
/// | ``pem(certificate:key:password:)``, ``pem(certificateData:keyData:password:)`` | yes | no: it needs a keychain identity; give PKCS#12 |
/// | ``pkcs12(_:password:)``, ``pkcs12(data:password:)`` | yes | yes |
/// | `keychain(_:certificates:)` (Apple platforms) | no | yes |
/// | ``provided(by:)`` | asked before each request to the host | asked when the server asks |
///
/// A background manager's downloads cannot show one: Apple's background sessions do not answer
/// client-certificate challenges, so such a request fails with
/// ``DownloadError/Kind/invalidRequest`` at once.
public struct ClientIdentity: Sendable, Hashable {
    enum Format: Sendable, Hashable {
        case pem(certificate: Material, key: Material)
        case pkcs12(Material)
        case provided(Provider)
        #if canImport(Darwin)
            case keychain(KeychainIdentity)
        #endif
    }

    /// Bytes given as a file or as data.
    enum Material: Sendable, Hashable {
        case file(URL)
        case data(Data)

        /// The bytes; a typed error naming the file when it cannot be read.
        func bytes() throws(DownloadError) -> Data {
            switch self {
            case .data(let data):
                return data
            case .file(let url):
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw .invalidRequest("the client certificate file \(url.path) cannot be read")
                }
                return data
            }
        }
    }

    /// Asks the app for an identity; equal only to itself.
    final class Provider: Sendable, Hashable {
        let provide: @Sendable (_ host: String) async throws -> ClientIdentity

        init(_ provide: @escaping @Sendable (_ host: String) async throws -> ClientIdentity) {
            self.provide = provide
        }

        static func == (a: Provider, b: Provider) -> Bool { a === b }

        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    let format: Format
    /// The password of the key (PEM) or of the PKCS#12 bytes.
    let password: String?

    /// A certificate and its private key in PEM files (the key encrypted with `password`, if
    /// it is).
    public static func pem(certificate: URL, key: URL, password: String? = nil) -> ClientIdentity {
        ClientIdentity(format: .pem(certificate: .file(certificate), key: .file(key)), password: password)
    }

    /// A certificate and its private key as PEM text (the key encrypted with `password`, if it
    /// is).
    public static func pem(certificateData: Data, keyData: Data, password: String? = nil) -> ClientIdentity {
        ClientIdentity(format: .pem(certificate: .data(certificateData), key: .data(keyData)), password: password)
    }

    /// A certificate and its key in a PKCS#12 file (`.p12`, `.pfx`) with its password.
    public static func pkcs12(_ file: URL, password: String) -> ClientIdentity {
        ClientIdentity(format: .pkcs12(.file(file)), password: password)
    }

    /// A certificate and its key as PKCS#12 bytes, with their password.
    public static func pkcs12(data: Data, password: String) -> ClientIdentity {
        ClientIdentity(format: .pkcs12(.data(data)), password: password)
    }

    /// An identity the app gives when one is needed: `provide` is called with the host's name
    /// (over URLSession when the server asks, over libcurl before each request to the host), and
    /// may read the keychain, ask the user, or fetch one. What it throws fails the request with
    /// `URLError.clientCertificateRequired` and the error in the reason. It must not return
    /// another provided identity.
    public static func provided(by provide: @escaping @Sendable (_ host: String) async throws -> ClientIdentity)
        -> ClientIdentity
    {
        ClientIdentity(format: .provided(Provider(provide)), password: nil)
    }

    /// The identity to show `host`: this one, or what its provider gives; a typed error (its
    /// reason for a transport's failure) when the provider throws.
    func resolved(forHost host: String) async throws(DownloadError) -> ClientIdentity {
        guard case .provided(let provider) = format else { return self }
        let identity: ClientIdentity
        do {
            identity = try await provider.provide(host)
        } catch {
            throw .invalidRequest("the client identity provider for \(host) failed: \(error)")
        }
        if case .provided = identity.format {
            throw .invalidRequest("the client identity provider for \(host) gave another provided identity")
        }
        return identity
    }
}
