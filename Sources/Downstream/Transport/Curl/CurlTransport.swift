internal import CCurl
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The libcurl transport (Linux): one multi handle driven by one thread of ours. Each request's
/// body bytes reach its receiver on that thread, straight from libcurl's receive buffer: no hop
/// to another queue and no allocation per chunk. A receiver that takes its time (a slow disk)
/// holds the thread, so libcurl stops reading and TCP pushes back on the servers: memory stays
/// bounded.
///
/// Redirects are never followed by libcurl: the receiver decides (``TransportReceiver``).
final class CurlTransport: Transport {
    /// What the transport is given from the manager's configuration.
    struct Settings: Sendable {
        /// How long a request may go without receiving a byte (and may take to connect).
        var requestTimeout: Duration
        var maximumConnectionsPerHost: Int
        /// Headers sent with every request, below the request's own.
        var additionalHeaders: [String: String]
        /// libcurl's receive buffer.
        var receiveBufferSize = 512 << 10
    }

    private let driver: Driver
    let name: String

    /// A transport, or nil when libcurl cannot be used (see ``CurlLibrary/availability``).
    init?(name: String, settings: Settings) {
        guard case .success(let version) = CurlLibrary.availability, let driver = Driver(name: name, settings: settings)
        else { return nil }
        self.driver = driver
        self.name = "libcurl \(version)"
    }

    deinit {
        driver.enqueue(.invalidate)
    }

    func start(_ request: URLRequest, receiver: any TransportReceiver) -> any TransportTask {
        let task = CurlRequest(request, receiver: receiver, driver: driver)
        driver.enqueue(.start(task))
        return task
    }

    func invalidate() {
        driver.enqueue(.invalidate)
    }
}

extension CurlTransport {
    /// What other threads ask of the driver's thread.
    enum Command {
        case start(CurlRequest)
        case cancel(CurlRequest)
        /// The receiver answered a redirect: follow `request`, or nil to end with the redirect.
        case answerRedirect(CurlRequest, URLRequest?)
        case invalidate
    }

    /// The thread that drives the multi handle, and everything only it touches. Other threads only
    /// queue commands and wake it up (`curl_multi_wakeup`, the one libcurl call allowed from any
    /// thread).
    final class Driver: @unchecked Sendable {
        // Safe: `multi` and `running` are only used on the driver's thread; `commands` is locked.
        let settings: Settings
        private let multi: OpaquePointer
        private let commands = Locked<[Command]>([])
        /// The requests whose easy handle is in the multi handle, by handle.
        private var running: [OpaquePointer: CurlRequest] = [:]
        private var isInvalidated = false

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

        func enqueue(_ command: Command) {
            commands.withLock { $0.append(command) }
            _ = ds_curl_multi_wakeup(multi)
        }

        // MARK: - The driver's thread

        private func run() {
            while !isInvalidated {
                for command in commands.withLock({ commands in
                    defer { commands = [] }; return commands
                }) {
                    perform(command)
                }
                guard !isInvalidated else { break }
                var stillRunning: Int32 = 0
                _ = ds_curl_multi_perform(multi, &stillRunning)
                var easy: OpaquePointer?
                var result: Int32 = 0
                while ds_curl_multi_next_done(multi, &easy, &result) == 1, let easy {
                    finished(easy, result: result)
                }
                var descriptors: Int32 = 0
                _ = ds_curl_multi_poll(multi, 1000, &descriptors)
            }
            for request in running.values {
                remove(request)
                request.complete(TransportFailure(code: .cancelled, reason: "the transport was invalidated"))
            }
            ds_curl_multi_cleanup(multi)
        }

        private func perform(_ command: Command) {
            switch command {
            case .start(let request):
                add(request, sending: request.request)
            case .cancel(let request):
                if request.easy != nil { remove(request) }
                request.complete(TransportFailure(code: .cancelled, reason: "cancelled"))
            case .answerRedirect(let request, let next):
                guard !request.hasCompleted else { return }
                if let next {
                    add(request, sending: next)
                } else {
                    request.endWithRedirect()
                }
            case .invalidate:
                isInvalidated = true
            }
        }

        private func add(_ request: CurlRequest, sending urlRequest: URLRequest) {
            guard !request.hasCompleted else { return }
            do {
                let easy = try request.makeHandle(for: urlRequest, settings: settings)
                running[easy] = request
                if ds_curl_multi_add(multi, easy) != 0 {
                    running[easy] = nil
                    request.releaseHandle()
                    request.complete(TransportFailure(code: .unknown, reason: "libcurl did not take the request"))
                }
            } catch {
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
            let failure = request.failure(of: result)
            remove(request)
            if failure == nil, request.isRedirect {
                request.askAboutRedirect { [self] next in enqueue(.answerRedirect(request, next)) }
            } else {
                request.end(failure)
            }
        }
    }
}
