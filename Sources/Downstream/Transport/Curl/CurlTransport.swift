internal import CCurl
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The libcurl transport (Linux): one multi handle driven by one thread of ours. Each request's
/// body bytes reach its receiver on that thread, straight from libcurl's receive buffer: no hop
/// to another queue and no allocation per chunk. A receiver whose disk is behind answers
/// ``BodyReception/later``: that transfer pauses in libcurl (which then reads nothing more for it,
/// so TCP pushes back on its server) while the others go on, and resumes when the receiver says.
///
/// Redirects are never followed by libcurl: the receiver decides (``TransportReceiver``).
package final class CurlTransport: Transport {
    /// What the transport is given from the manager's configuration.
    package struct Settings: Sendable {
        /// How long a request may go without receiving a byte (and may take to connect).
        var requestTimeout: Duration
        /// How long connecting may take; nil for ``requestTimeout``.
        var connectionTimeout: Duration? = nil
        var addressFamily = AddressFamily.any
        /// The proxy; nil for libcurl's own (the environment's).
        var proxy: Proxy? = nil
        /// The trust rules as libcurl options; nil without rules or environment settings.
        var trust: CurlTrust? = nil
        var maximumConnectionsPerHost: Int
        /// Headers sent with every request, below the request's own.
        var additionalHeaders: [String: String]
        /// libcurl's receive buffer.
        var receiveBufferSize = 512 << 10
    }

    private let driver: Driver
    let name: String
    /// libcurl keeps nothing per chunk: a file comes in one request, with no stitch point.
    var needsBoundedRequests: Bool { false }
    /// What the loaded libcurl and its TLS library take (all but keychain identities, with
    /// OpenSSL).
    var connectionSettings: Set<ConnectionSetting> { CurlLibrary.connectionSettings }

    /// Whether libcurl can be used here (see ``CurlLibrary/availability``).
    package static var isAvailable: Bool {
        if case .success = CurlLibrary.availability { return true }
        return false
    }

    /// A transport, or nil when libcurl cannot be used (see ``CurlLibrary/availability``).
    package init?(name: String, settings: Settings) {
        guard case .success(let version) = CurlLibrary.availability, let driver = Driver(name: name, settings: settings)
        else { return nil }
        self.driver = driver
        self.name = "libcurl \(version)"
    }

    deinit {
        driver.enqueue(.invalidate)
    }

    package func start(_ request: URLRequest, receiver: any TransportReceiver) -> any TransportTask {
        let task = CurlRequest(request, receiver: receiver, driver: driver)
        driver.enqueue(.start(task))
        return task
    }

    package func invalidate() async {
        driver.enqueue(.invalidate)
        await driver.stopped.wait()
    }
}

extension CurlTransport.Settings {
    /// Settings with libcurl's defaults but for these (the benchmark's floor).
    package init(requestTimeout: Duration, maximumConnectionsPerHost: Int, additionalHeaders: [String: String]) {
        self.requestTimeout = requestTimeout
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.additionalHeaders = additionalHeaders
    }
}

extension CurlTransport {
    /// What other threads ask of the driver's thread.
    enum Command {
        case start(CurlRequest)
        case cancel(CurlRequest)
        /// The receiver answered a redirect: follow `request`, or nil to end with the redirect.
        case answerRedirect(CurlRequest, URLRequest?)
        /// The receiver can take body bytes again: unpause the transfer.
        case resume(CurlRequest)
        /// The identity provider of `host`'s rule answered: send `request` with it, or fail.
        case identityProvided(CurlRequest, URLRequest, host: String, Result<ClientIdentity, TransportFailure>)
        case invalidate

        /// The request that waits for this command to go on, and so ends if it never runs.
        var waitingRequest: CurlRequest? {
            switch self {
            case .start(let request), .answerRedirect(let request, _), .identityProvided(let request, _, _, _):
                request
            case .cancel, .resume, .invalidate:
                nil
            }
        }
    }

    /// The thread that drives the multi handle, and everything only it touches. Other threads only
    /// queue commands and wake it up (`curl_multi_wakeup`, the one libcurl call allowed from any
    /// thread).
    final class Driver: @unchecked Sendable {
        // Safe: `running`, `awaitingAnswers` and `isInvalidated` are only used on the driver's
        // thread; `queue` is locked, and the multi handle is only used on the driver's thread, but
        // for `curl_multi_wakeup`, which is called under `queue`'s lock until the handle is gone.
        let settings: Settings
        private let multi: OpaquePointer
        private let queue = Locked(Queue())
        /// The requests whose easy handle is in the multi handle, by handle.
        private var running: [OpaquePointer: CurlRequest] = [:]
        /// The requests whose receiver decides about a redirect.
        private var awaitingAnswers: [ObjectIdentifier: CurlRequest] = [:]
        private var isInvalidated = false
        /// Opens once the driver's thread has ended every request and freed the multi handle.
        let stopped = Latch()

        private struct Queue {
            var commands: [Command] = []
            /// The driver's thread ended and the multi handle is gone.
            var hasStopped = false
        }

        init?(name: String, settings: Settings) {
            guard let multi = ds_curl_multi_init() else { return nil }
            self.multi = multi
            var settings = settings
            settings.receiveBufferSize = min(settings.receiveBufferSize, CurlLibrary.maximumBufferSize)
            self.settings = settings
            _ = ds_curl_multi_setopt_long(
                multi, CurlMultiOption.maximumHostConnections, max(0, settings.maximumConnectionsPerHost))
            let thread = Thread { [self] in run() }
            thread.name = "Downstream.\(name).curl"
            thread.start()
        }

        /// Hands `command` to the driver's thread. Once the transport was invalidated, a request
        /// started, or whose redirect was answered, ends at once as cancelled.
        func enqueue(_ command: Command) {
            let isTaken = queue.withLock { queue in
                guard !queue.hasStopped else { return false }
                queue.commands.append(command)
                _ = ds_curl_multi_wakeup(multi)
                return true
            }
            guard !isTaken else { return }
            command.waitingRequest?.complete(
                TransportFailure(code: .cancelled, reason: "the transport was invalidated"))
        }

        // MARK: - The driver's thread

        private func run() {
            // Every socket of the transport is written on this thread (and the resolver threads
            // libcurl starts from it inherit the mask); libcurl uses no signals (NOSIGNAL), but its
            // TLS library writes with write(2).
            BrokenPipe.blockOnThisThread()
            while !isInvalidated {
                // Nothing of a request is held while the thread waits: a request that ended
                // lets its owner go at once.
                performCommands()
                guard !isInvalidated else { break }
                transfer()
                let wait = endIdleTransfers()
                var descriptors: Int32 = 0
                _ = ds_curl_multi_poll(multi, Int32((wait.inSeconds * 1000).rounded(.up)), &descriptors)
            }
            let left = queue.withLock { queue in
                queue.hasStopped = true
                defer { queue.commands = [] }
                return queue.commands
            }
            let invalidated = TransportFailure(code: .cancelled, reason: "the transport was invalidated")
            for request in running.values {
                remove(request)
                request.complete(invalidated)
            }
            for request in awaitingAnswers.values {
                request.complete(invalidated)
            }
            for request in left.compactMap(\.waitingRequest) {
                request.complete(invalidated)
            }
            ds_curl_multi_cleanup(multi)
            stopped.open()
        }

        private func performCommands() {
            let commands = queue.withLock { queue in
                defer { queue.commands = [] }
                return queue.commands
            }
            for command in commands {
                perform(command)
            }
        }

        /// Lets libcurl move bytes (the callbacks run now), then ends the transfers that finished.
        private func transfer() {
            var stillRunning: Int32 = 0
            _ = ds_curl_multi_perform(multi, &stillRunning)
            var easy: OpaquePointer?
            var result: Int32 = 0
            while ds_curl_multi_next_done(multi, &easy, &result) == 1, let easy {
                finished(easy, result: result)
            }
        }

        /// Ends the transfers that received no byte for the request timeout (libcurl has no such
        /// limit: see ``CurlRequest/IdleWatch``); returns how long the thread may wait for
        /// sockets before the next one could expire: a second at most, 10 ms at least.
        private func endIdleTransfers() -> Duration {
            let now = ContinuousClock.now
            var wait = Duration.seconds(1)
            for request in Array(running.values) {
                switch request.idleCheck(at: now, settings: settings) {
                case .unwatched:
                    break
                case .expiresIn(let left):
                    wait = min(wait, max(.milliseconds(10), left))
                case .expired:
                    remove(request)
                    request.end(CurlRequest.idleFailure(after: settings.requestTimeout))
                }
            }
            return wait
        }

        private func perform(_ command: Command) {
            switch command {
            case .start(let request):
                add(request, sending: request.request)
            case .cancel(let request):
                if request.easy != nil { remove(request) }
                awaitingAnswers[ObjectIdentifier(request)] = nil
                request.complete(TransportFailure(code: .cancelled, reason: "cancelled"))
            case .answerRedirect(let request, let next):
                awaitingAnswers[ObjectIdentifier(request)] = nil
                guard !request.hasCompleted else { return }
                if let next {
                    add(request, sending: next)
                } else {
                    request.endWithRedirect()
                }
            case .resume(let request):
                // The write callback may run inside this call, with the bytes held back.
                if let easy = request.easy { _ = ds_curl_easy_pause(easy, CurlPause.resume) }
            case .identityProvided(let request, let urlRequest, let host, let result):
                switch result {
                case .success(let identity):
                    request.providedIdentity = (host, identity)
                    add(request, sending: urlRequest)
                case .failure(let failure):
                    request.complete(failure)
                }
            case .invalidate:
                isInvalidated = true
            }
        }

        private func add(_ request: CurlRequest, sending urlRequest: URLRequest) {
            guard !request.hasCompleted else { return }
            let host = urlRequest.url?.host ?? ""
            if let identity = settings.trust?.options(for: host).clientIdentity, case .provided = identity.format,
                request.providedIdentity?.host != host
            {
                // The app's provider may take its time (a keychain, a prompt): the driver goes on.
                Task { [self] in
                    let result: Result<ClientIdentity, TransportFailure>
                    do throws(DownloadError) {
                        result = .success(try await identity.resolved(forHost: host))
                    } catch {
                        result = .failure(TransportFailure(clientIdentity: error))
                    }
                    enqueue(.identityProvided(request, urlRequest, host: host, result))
                }
                return
            }
            do {
                let easy = try request.makeHandle(for: urlRequest, settings: settings)
                running[easy] = request
                if ds_curl_multi_add(multi, easy) != 0 {
                    running[easy] = nil
                    request.releaseHandle()
                    request.complete(TransportFailure(code: .unknown, reason: "libcurl did not take the request"))
                }
            } catch {
                request.releaseHandle()
                request.complete(error)
            }
        }

        private func remove(_ request: CurlRequest) {
            guard let easy = request.easy else { return }
            _ = ds_curl_multi_remove(multi, easy)
            running[easy] = nil
            request.releaseHandle()
        }

        private func finished(_ easy: OpaquePointer, result: Int32) {
            guard let request = running[easy] else { return }
            if result != CurlCode.ok, let refusal = request.proxyRefusal() {
                remove(request)
                request.end(with: refusal)
                return
            }
            let failure = request.failure(of: result)
            remove(request)
            if failure == nil, request.isRedirect {
                awaitingAnswers[ObjectIdentifier(request)] = request
                request.askAboutRedirect { [self] next in enqueue(.answerRedirect(request, next)) }
            } else {
                request.end(failure)
            }
        }
    }
}
