// Security as Apple platforms have it, for .ci/check-apple: the trust evaluation, keys, PKCS#12
// import and keychain lookups the package's Darwin branches and the documentation samples use.
// Signatures are the Swift view of the iOS 16.5 SDK's Security headers (swift-synthesize-interface
// -module-name Security), with each header's API_AVAILABLE. Where a header says only
// `macos(...), ios(2.0)`, clang infers tvOS 9.0 and watchOS 2.0 (visionOS 1.0), which Apple's
// documentation pages for these functions list: those are written out here.
//
// CoreFoundation's types come first: Apple's Foundation re-exports CoreFoundation, and Linux
// Foundation has no CoreFoundation module for Swift. Each is the Foundation class it is bridged
// to toll-free, so the `as CFData`, `as CFDictionary`, `as? [SecCertificate]` and `as Data?`
// casts of Apple code compile here as they do there. Security's own types (SecTrust...) are CF
// types: classes, Hashable, not Sendable.

@_exported import Foundation

public typealias CFTypeRef = AnyObject
public typealias CFData = NSData
public typealias CFArray = NSArray
public typealias CFDictionary = NSDictionary
public typealias CFString = NSString
public typealias CFError = NSError
public typealias CFIndex = Int
public typealias OSStatus = Int32

// CFBase.h `typedef const struct __CFAllocator *CFAllocatorRef`.
public final class CFAllocator {}

// SecBase.h `typedef struct __SecCertificate *SecCertificateRef` (and the others below).
public final class SecCertificate: Hashable {
    public static func == (a: SecCertificate, b: SecCertificate) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

public final class SecIdentity: Hashable {
    public static func == (a: SecIdentity, b: SecIdentity) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

public final class SecKey: Hashable {
    public static func == (a: SecKey, b: SecKey) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// SecTrust.h `typedef struct CF_BRIDGED_TYPE(id) __SecTrust *SecTrustRef`.
public final class SecTrust: Hashable {
    public static func == (a: SecTrust, b: SecTrust) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// SecBase.h `errSecSuccess = 0`; the constants below are `let`s imported from C there, get-only
// properties here (a global `let` of a non-Sendable class is an error in Swift 6).
public var errSecSuccess: OSStatus { fatalError() }

// SecCertificate.h.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { fatalError() }
@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { fatalError() }

// SecKey.h.
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { fatalError() }
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> CFData?
{ fatalError() }

// SecTrust.h.
@available(macOS 10.3, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    fatalError()
}
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    fatalError()
}
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    fatalError()
}
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError() }

// SecImportExport.h.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>)
    -> OSStatus
{ fatalError() }
public var kSecImportExportPassphrase: CFString { fatalError() }
public var kSecImportItemCertChain: CFString { fatalError() }
public var kSecImportItemIdentity: CFString { fatalError() }

// SecItem.h.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError()
}
public var kSecClass: CFString { fatalError() }
public var kSecClassIdentity: CFString { fatalError() }
public var kSecAttrLabel: CFString { fatalError() }
public var kSecReturnRef: CFString { fatalError() }
public var kSecAttrKeyType: CFString { fatalError() }
public var kSecAttrKeySizeInBits: CFString { fatalError() }
public var kSecAttrKeyTypeRSA: CFString { fatalError() }
public var kSecAttrKeyTypeECSECPrimeRandom: CFString { fatalError() }
