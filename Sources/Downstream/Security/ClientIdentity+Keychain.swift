#if canImport(Darwin)
    import Foundation
    import Security

    extension ClientIdentity {
        /// An identity from the keychain (`SecItemCopyMatching` with `kSecClassIdentity`), with
        /// the intermediate certificates to send with it: for URLSession on Apple platforms.
        public static func keychain(_ identity: SecIdentity, certificates: [SecCertificate] = []) -> ClientIdentity {
            ClientIdentity(
                format: .keychain(KeychainIdentity(identity: identity, certificates: certificates)), password: nil)
        }
    }

    /// A keychain identity and its certificates. Security's objects are immutable and may be used
    /// from any thread; the SDK does not mark them `Sendable`.
    struct KeychainIdentity: @unchecked Sendable, Hashable {
        let identity: SecIdentity
        let certificates: [SecCertificate]
    }
#endif
