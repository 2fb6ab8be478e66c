import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A way to put HTTP requests on the wire: URLSession on every platform (``URLSessionTransport``),
/// and whatever else can deliver what a ``TransportReceiver`` is told.
///
/// A transport moves bytes and nothing more. It does not follow redirects on its own (it asks the
/// receiver), does not answer authentication challenges (a `401` or `407` is delivered as a
/// response head), does not decode the body, and does not retry.
protocol Transport: Sendable {
    /// What moves the bytes, for people: "URLSession", "libcurl 7.88.1".
    var name: String { get }

    /// Whether a large file should come in bounded ranges, one request after another, rather than
    /// in one request: for a transport that keeps memory for each chunk until its request ends.
    var needsBoundedRequests: Bool { get }

    /// The manager's connection settings the transport applies to its requests; a request that
    /// needs one it does not apply fails instead of going out without it.
    var connectionSettings: Set<ConnectionSetting> { get }

    /// Sends `request`. Its events reach `receiver` one at a time and in order, on a queue of the
    /// transport. A receiver that cannot take body bytes yet says so (``BodyReception/later``)
    /// and the transfer waits, reading nothing more, until it is resumed: bytes never pile up. The
    /// last event is always ``TransportReceiver/didComplete(_:)``, also when the request is
    /// cancelled.
    func start(_ request: URLRequest, receiver: any TransportReceiver) -> any TransportTask

    /// Cancels every request still running and releases the transport's resources; returns once
    /// they are released, so that a process that exits next does not take a library away from a
    /// thread that still closes a connection (measured: `dl` crashed in libcrypto, 1 exit in 10,
    /// while libcurl's thread closed a TLS connection).
    func invalidate() async
}

/// A connection setting of the manager that a transport may or may not be able to apply.
enum ConnectionSetting: Hashable, Sendable, CaseIterable {
    /// A trust rule's own certificate authorities.
    case trustAuthorities
    /// A trust rule's public-key pins.
    case publicKeyPins
    /// A host whose certificate is not checked.
    case acceptingAnyCertificate
    /// A client identity in PEM (files or data).
    case pemClientIdentity
    /// A client identity in PKCS#12 (a file or data).
    case pkcs12ClientIdentity
    /// A client identity given as bytes, not as files.
    case clientIdentityData
    /// A client identity from the keychain (Apple platforms).
    case keychainClientIdentity
    /// A client identity asked of the app's provider.
    case providedClientIdentity
    case connectionTimeout
    case addressFamily
    /// An HTTP or SOCKS5 proxy without credentials.
    case proxy
    /// A proxy reached over TLS, or one with credentials.
    case proxyOverTLSOrWithCredentials
}

/// A request a transport is running.
package protocol TransportTask: AnyObject, Sendable {
    /// Asks the request to stop; it then completes: with ``TransportFailure/isCancellation``, or
    /// however it ended if it ended first. May be called from any thread, any number of times,
    /// before or after the request's first event; never waits for the network.
    func cancel()

    /// Delivers again the body bytes the receiver answered ``BodyReception/later`` to, and goes on
    /// with the transfer. May be called from any thread, also before the receiver's answer has
    /// reached the transport, or after the request ended (then it does nothing).
    func resumeBody()

    /// Whether a ``BodyReception/later`` holds back this request alone (libcurl pauses it;
    /// URLSession suspends its task on Apple platforms) or every request of the transport
    /// (URLSession's delegate queue waits on Linux, and with it every delivery).
    var waitsAlone: Bool { get }
}

/// What a receiver did with body bytes.
package enum BodyReception: Sendable {
    /// It took them (kept, or dropped on purpose).
    case taken
    /// It took none of them and cannot yet (its disk is behind). The transport holds the transfer
    /// and delivers the same bytes again after ``TransportTask/resumeBody()``.
    case later
}

/// What a transport tells the owner of a request, in this order: any number of redirects, then a
/// response head and its body's bytes (possibly none), then the end. After a cancel, events may
/// still come until the end.
package protocol TransportReceiver: AnyObject, Sendable {
    /// The server answered with a redirect to `proposed` (the request to send next, headers
    /// carried over). The transport waits for `answer`: the request to follow (possibly changed),
    /// or nil to take the redirect itself as the response. An answer given after the request was
    /// cancelled, or twice, is ignored.
    func willRedirect(
        _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void)

    /// The head of the response whose body follows.
    func didReceive(_ response: ServerResponse)

    /// The next bytes of the body of `task`'s request, valid only during the call.
    func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception

    /// The request ended: completely, if `failure` is nil (the body may still be shorter than
    /// announced: that is for the receiver to judge).
    func didComplete(_ failure: TransportFailure?)
}

/// Why a request ended before its response did: the network, a timeout, a cancel, TLS.
package struct TransportFailure: Error, Equatable, Sendable {
    /// The `URLError` code that best says what happened; every transport speaks this vocabulary.
    var code: URLError.Code
    /// The transport's own words for it.
    package var reason: String
    /// The system's policy that kept the request off the network it has (Apple platforms).
    var networkUnavailableReason: NetworkUnavailableReason?
    /// `EMFILE` or `ENFILE` when the connection could not be made because the process (or the
    /// system) had no file descriptor left for its socket: a local shortage, not the network's.
    var descriptorShortage: Int32?

    /// Whether the request ended because it was cancelled.
    var isCancellation: Bool { code == .cancelled }

    /// Whether the server's certificate was refused: its chain, its name, its dates or a pin.
    var isTrustRefusal: Bool {
        [
            .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot,
        ].contains(code)
    }
}
