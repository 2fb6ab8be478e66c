internal import CCurl
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request of the libcurl transport: its easy handle while one is in the multi handle, the
/// response head being read, and what it tells its receiver.
///
/// Everything but ``cancel()`` runs on the driver's thread (libcurl's callbacks included), one
/// call at a time: that is what orders the receiver's events.
final class CurlRequest: TransportTask, @unchecked Sendable {
    // Safe: `isCancelled` is locked; everything else is only touched on the driver's thread.
    let request: URLRequest
    /// Let go once the request ended: the receiver holds what its download holds.
    private var receiver: (any TransportReceiver)?
    /// Weak: a request its owner keeps after the transport ended must not keep the driver.
    private weak var driver: CurlTransport.Driver?
    private let cancelled = Locked(false)

    private(set) var easy: OpaquePointer?
    private var headerList: OpaquePointer?
    /// The headers for a proxy's `CONNECT` (`Proxy-Authorization` of an HTTPS request).
    private var proxyHeaderList: OpaquePointer?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
    /// The `errno` of a socket that could not be made for the handle (see
    /// `ds_curl_easy_record_socket_errors`), 0 if none.
    private let socketErrno = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    /// The URL of the request on the wire (after the redirects followed so far).
    private(set) var currentURL: URL?
    private var head = Head()
    private(set) var hasCompleted = false
    /// The trust rule of the request's host, in words, for a refusal's reason.
    var trustRule: String?
    /// What the rule's identity provider gave for a host of this request (a redirect may lead to
    /// another).
    var providedIdentity: (host: String, identity: ClientIdentity)?
    /// How long the request has gone without a byte (``idleCheck(at:timeout:connectsApart:)``).
    var idleWatch = IdleWatch(since: .now)

    /// The response being read: its status and headers, from libcurl's header lines.
    private struct Head {
        var status = 0
        var headers: [String: String] = [:]
        var isComplete = false
        var isDelivered = false
        /// Where a complete redirect response points; decided once, as its head ends.
        var redirect: URL?
        /// Decodes the body of a successful response that the server compressed.
        var decoder: CurlBodyDecoder?
    }
    /// Why the response could not be taken (its head too large, its body not decodable), when
    /// it could not.
    private var responseFailure: TransportFailure?
    /// The bytes of the response heads read for the handle so far (interim ones included).
    private var headBytes = 0
    /// The most head bytes a request takes: below libcurl's own limit (300 KB, in versions that
    /// have one), so that every version stops at the same place, with this transport's words.
    static let maximumHeadBytes = 256 << 10

    init(_ request: URLRequest, receiver: any TransportReceiver, driver: CurlTransport.Driver) {
        self.request = request
        self.receiver = receiver
        self.driver = driver
        errorBuffer.initialize(repeating: 0, count: 256)
        socketErrno.initialize(to: 0)
    }

    deinit {
        errorBuffer.deallocate()
        socketErrno.deallocate()
    }

    func cancel() {
        if cancelled.setFirst() {
            driver?.enqueue(.cancel(self))
        }
    }

    func resumeBody() {
        driver?.enqueue(.resume(self))
    }

    /// libcurl pauses this transfer alone.
    var waitsAlone: Bool { true }

    private var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Whether the response read is a redirect to follow (the receiver decides).
    var isRedirect: Bool { head.redirect != nil }

    // MARK: - The driver's thread

    /// A new easy handle that sends `urlRequest`, its callbacks pointing here.
    func makeHandle(for urlRequest: URLRequest, settings: CurlTransport.Settings) throws(TransportFailure)
        -> OpaquePointer
    {
        guard let url = urlRequest.url, let easy = ds_curl_easy_init() else {
            throw TransportFailure(code: .badURL, reason: "the request has no URL")
        }
        self.easy = easy
        currentURL = url
        head = Head()
        headBytes = 0
        idleWatch = IdleWatch(since: .now)
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ds_curl_easy_setopt_pointer(easy, CurlOption.url, url.absoluteString)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.noSignal, 1)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.noProgress, 1)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.followLocation, 0)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.tcpKeepAlive, 1)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.bufferSize, settings.receiveBufferSize)
        _ = ds_curl_easy_setopt_pointer(easy, CurlOption.errorBuffer, errorBuffer)
        socketErrno.pointee = 0
        _ = ds_curl_easy_record_socket_errors(easy, socketErrno)
        // No CURLOPT_ACCEPT_ENCODING: libcurl's decoder keeps what a paused transfer cannot take
        // in memory. A compressed body is decoded here (`CurlBodyDecoder`), as URLSession decodes
        // one; the request's own `Accept-Encoding` is what is sent.
        _ = ds_curl_easy_setopt_callback(easy, CurlOption.writeFunction, Self.bodyCallback)
        _ = ds_curl_easy_setopt_pointer(easy, CurlOption.writeData, context)
        _ = ds_curl_easy_setopt_callback(easy, CurlOption.headerFunction, Self.headerCallback)
        _ = ds_curl_easy_setopt_pointer(easy, CurlOption.headerData, context)
        // URLSession's request timeout: the longest wait for a connection (unless connecting has a
        // timeout of its own) and, watched by the driver (`idleCheck`), for a byte. libcurl's
        // low-speed limit (an average over its last five seconds: it fires about five seconds
        // late) is left for response heads, whose bytes the driver does not see.
        let timeout = max(1, Int(settings.requestTimeout.inSeconds.rounded(.up)))
        let connectMilliseconds = settings.connectionTimeout.map { max(1, Int(($0.inSeconds * 1000).rounded(.up))) }
        _ = ds_curl_easy_setopt_long(easy, CurlOption.connectTimeoutMilliseconds, connectMilliseconds ?? timeout * 1000)
        // A proxy's answer to CONNECT (ours, or one from the environment) is not the response.
        _ = ds_curl_easy_setopt_long(easy, CurlOption.suppressConnectHeaders, 1)
        if let proxy = settings.proxy {
            _ = ds_curl_easy_setopt_pointer(easy, CurlOption.proxy, proxy.curlURL)
            _ = ds_curl_easy_setopt_pointer(easy, CurlOption.noProxy, proxy.curlNoProxy)
            if let user = proxy.user { _ = ds_curl_easy_setopt_pointer(easy, CurlOption.proxyUserName, user) }
            if let password = proxy.password {
                _ = ds_curl_easy_setopt_pointer(easy, CurlOption.proxyPassword, password)
            }
        }
        try applyTrust(
            settings.trust?.options(for: url.host ?? "") ?? CurlTrust.Options(), host: url.host ?? "", to: easy)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.lowSpeedLimit, 1)
        _ = ds_curl_easy_setopt_long(easy, CurlOption.lowSpeedTime, timeout)
        switch settings.addressFamily {
        case .any: break
        case .ipv4: _ = ds_curl_easy_setopt_long(easy, CurlOption.ipResolve, 1)
        case .ipv6: _ = ds_curl_easy_setopt_long(easy, CurlOption.ipResolve, 2)
        }
        switch urlRequest.httpMethod ?? "GET" {
        case "GET": break
        case "HEAD": _ = ds_curl_easy_setopt_long(easy, CurlOption.noBody, 1)
        case let method: _ = ds_curl_easy_setopt_pointer(easy, CurlOption.customRequest, method)
        }
        if let body = urlRequest.httpBody {
            _ = ds_curl_easy_setopt_long(easy, CurlOption.postFieldSize, body.count)
            body.withUnsafeBytes { _ = ds_curl_easy_setopt_pointer(easy, CurlOption.copyPostFields, $0.baseAddress) }
        }
        var headers = settings.additionalHeaders
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            headers = headers.filter { $0.key.caseInsensitiveCompare(name) != .orderedSame }
            headers[name] = value
        }
        // Through a tunnel, the proxy sees only the CONNECT: its credentials go there, never to
        // the server (libcurl sends the request's headers to the server alone).
        if url.scheme?.lowercased() == "https",
            let name = headers.keys.first(where: { $0.caseInsensitiveCompare("Proxy-Authorization") == .orderedSame }),
            let value = headers.removeValue(forKey: name)
        {
            proxyHeaderList = ds_curl_slist_append(nil, "\(name): \(value)")
            _ = ds_curl_easy_setopt_pointer(easy, CurlOption.proxyHeader, UnsafeRawPointer(proxyHeaderList))
        }
        var list: OpaquePointer?
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            list = ds_curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        headerList = list
        _ = ds_curl_easy_setopt_pointer(easy, CurlOption.httpHeader, UnsafeRawPointer(list))
        return easy
    }

    /// Ends with `response` (a proxy's refusal) as the response, with no body.
    func end(with response: ServerResponse) {
        head.isDelivered = true
        receiver?.didReceive(response)
        complete(nil)
    }

    /// Frees the easy handle (it left the multi handle).
    func releaseHandle() {
        if let easy { ds_curl_easy_cleanup(easy) }
        if let headerList { ds_curl_slist_free_all(headerList) }
        if let proxyHeaderList { ds_curl_slist_free_all(proxyHeaderList) }
        easy = nil
        headerList = nil
        proxyHeaderList = nil
    }

    /// How the transfer that ended with `result` failed, if it did.
    func failure(of result: Int32) -> TransportFailure? {
        if isCancelled {
            return TransportFailure(code: .cancelled, reason: "cancelled")
        }
        if let responseFailure { return responseFailure }
        guard result != CurlCode.ok else { return nil }
        var osErrno = Int(socketErrno.pointee)
        if osErrno == 0, let easy { _ = ds_curl_easy_getinfo_long(easy, CurlInfo.osErrno, &osErrno) }
        let message =
            errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: ds_curl_easy_strerror(result))
        let failure = TransportFailure(curlCode: result, osErrno: Int32(truncatingIfNeeded: osErrno), message: message)
        guard failure.isTrustRefusal, let trustRule else { return failure }
        return TransportFailure(code: failure.code, reason: "\(failure.reason) (\(trustRule))")
    }

    /// The transfer ended: the head is delivered if it was not (a response with no body), then
    /// the end.
    func end(_ failure: TransportFailure?) {
        if failure == nil, !head.isDelivered, head.isComplete {
            deliverHead()
        }
        complete(
            failure ?? head.decoder?.finish()
                ?? (head.isDelivered ? nil : TransportFailure(code: .badServerResponse, reason: "no response")))
    }

    /// The receiver took the redirect as the response.
    func endWithRedirect() {
        deliverHead()
        complete(nil)
    }

    /// Tells the receiver how the request ended, once.
    func complete(_ failure: TransportFailure?) {
        guard !hasCompleted else { return }
        hasCompleted = true
        receiver?.didComplete(failure)
        receiver = nil
    }

    /// Asks the receiver about the redirect read; `answer` gets its decision, from any thread.
    func askAboutRedirect(_ answer: @escaping @Sendable (URLRequest?) -> Void) {
        guard let location = head.redirect, let currentURL else { return endWithRedirect() }
        var proposed = request
        proposed.url = location
        if head.status == 303 || ([301, 302].contains(head.status) && request.httpMethod == "POST") {
            proposed.httpMethod = "GET"
            proposed.httpBody = nil
        }
        let response = ServerResponse(url: currentURL, statusCode: head.status, headers: head.headers)
        receiver?.willRedirect(response, to: proposed, answer: answer)
    }

    private var location: URL? {
        guard let value = head.headers.first(where: { $0.key.lowercased() == "location" })?.value else { return nil }
        return URL(string: value, relativeTo: currentURL)?.absoluteURL
    }

    private func deliverHead() {
        head.isDelivered = true
        if (200..<300).contains(head.status),
            let coding = CurlBodyDecoder.coding(
                of: head.headers.first(where: { Self.isContentEncoding($0.key) })?.value)
        {
            head.decoder = CurlBodyDecoder(coding)
        }
        receiver?.didReceive(ServerResponse(url: currentURL, statusCode: head.status, headers: head.headers))
    }

    /// One header line of a response (status line, field, or the blank line that ends the head).
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !isCancelled else { return 0 }
        idleWatch.received()
        headBytes += bytes.count
        guard headBytes <= Self.maximumHeadBytes else {
            // An endless head: refused before it costs more memory (libcurl then ends the transfer).
            responseFailure = TransportFailure(
                code: .cannotParseResponse,
                reason: "the server's response head is larger than \(Self.maximumHeadBytes >> 10) KiB")
            return 0
        }
        // Without its line end ("\r\n" is one Character in Swift: trimmed as bytes).
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        if line.starts(with: "HTTP/".utf8) {
            // A new response: an interim one (1xx) is followed by the real one.
            head = Head(status: Self.statusCode(ofStatusLine: line))
            idleWatch.isReadingHead = true
        } else if line.isEmpty {
            if !(100..<200).contains(head.status) {
                head.isComplete = true
                idleWatch.isReadingHead = false
                if [301, 302, 303, 307, 308].contains(head.status) {
                    head.redirect = location
                }
                if !isRedirect { deliverHead() }
            }
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            // Made from the bytes: no string of the whole line first.
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
            var start = colon + 1
            var valueEnd = line.endIndex
            while start < valueEnd, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            while valueEnd > start, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<valueEnd]), as: UTF8.self)
            head.headers[name] = head.headers[name].map { "\($0), \(value)" } ?? value
        }
        return bytes.count
    }

    /// Whether `name` is `Content-Encoding`, in any case: compared byte by byte, since every
    /// successful response asks (a lowercased copy of each name would cost an allocation each).
    private static func isContentEncoding(_ name: String) -> Bool {
        let expected = "content-encoding".utf8
        return name.utf8.count == expected.count
            && zip(name.utf8, expected).allSatisfy { byte, lower in
                lower == UInt8(ascii: "-") ? byte == lower : byte | 0x20 == lower
            }
    }

    /// The status code of a status line (`HTTP/1.1 206 Partial Content`): the three digits after
    /// the first space; 0 if there are none.
    static func statusCode(ofStatusLine line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0
        var digits = 0
        for byte in line[(space + 1)...] {
            guard byte >= 0x30, byte <= 0x39 else { break }
            code = code * 10 + Int(byte - 0x30)
            digits += 1
            guard digits <= 3 else { return 0 }
        }
        return digits == 3 ? code : 0
    }

    /// Body bytes, straight from libcurl's buffer.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !isCancelled else { return 0 }
        idleWatch.received()
        // A redirect's own body is not the file.
        guard !isRedirect else { return bytes.count }
        idleWatch.isReadingHead = false
        if !head.isDelivered {
            head.isComplete = true
            deliverHead()
        }
        if let decoder = head.decoder {
            return receiveEncoded(bytes, through: decoder)
        }
        // Paused: libcurl reads nothing more for this transfer until `resumeBody()`, then
        // calls again with the same bytes.
        guard receiver?.didReceive(bytes, of: self) != .later else { return CurlPause.fromWriteCallback }
        return bytes.count
    }

    /// Compressed body bytes: decoded a piece at a time, each handed on before the next is made.
    private func receiveEncoded(_ bytes: UnsafeRawBufferPointer, through decoder: CurlBodyDecoder) -> Int {
        do {
            let reception = try decoder.decode(bytes) { piece in
                guard !isCancelled, let receiver else { return nil }
                return receiver.didReceive(piece, of: self)
            }
            return reception == .later ? CurlPause.fromWriteCallback : bytes.count
        } catch {
            // libcurl ends the transfer (a write error); `failure(of:)` says why.
            responseFailure = error
            return 0
        }
    }

    private static let bodyCallback: ds_curl_data_callback = { data, size, count, context in
        guard let context else { return 0 }
        let request = Unmanaged<CurlRequest>.fromOpaque(context).takeUnretainedValue()
        let taken = request.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        // Paused: the receiver is behind, not the server; nothing is read until it says.
        request.idleWatch.isPaused = taken == CurlPause.fromWriteCallback
        return taken
    }

    private static let headerCallback: ds_curl_data_callback = { data, size, count, context in
        guard let context else { return 0 }
        let request = Unmanaged<CurlRequest>.fromOpaque(context).takeUnretainedValue()
        return request.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    }
}
