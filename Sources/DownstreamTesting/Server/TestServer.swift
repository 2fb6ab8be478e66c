import Foundation

/// An in-process HTTP/1.1 server on `127.0.0.1` with fault injection, for tests and
/// benchmarks.
///
/// Each server listens on its own kernel-chosen port, serves every connection on its own
/// thread, and records every request. Any number of servers can run in one process, so each
/// test can have its own. A server made with `listening: false` refuses connections until
/// ``startListening()``.
///
/// Set a ``Route`` for each path the test serves; the server answers `404` to the others. The
/// request log (``requests(_:)``) tells what the client asked for and what it got:
///
/// ```swift
/// let server = try TestServer()
/// defer { server.shutdown() }
/// var route = Route(body: .pattern(count: 10_000_000))
/// route.etag = "\"v1\""
/// route.faults = [.closeAfter(1_000_000)]  // the first response ends after 1,000,000 bytes
/// server.setRoute("/file", route)
/// // ... your app downloads server.url("/file"), and resumes after the break ...
/// // (Downstream asks for the 64 KiB before the bytes on disk again, to compare them.)
/// #expect(server.requests("/file").last?.rangeStart == 934_464)  // 1,000,000 minus 64 KiB
/// ```
public final class TestServer: Sendable {
    private let core: ServerCore

    /// Binds `127.0.0.1` on a free port, listens and starts accepting connections; or, when
    /// `listening` is `false`, only binds it.
    ///
    /// A server that only binds its port has its ``port`` and ``url(_:)``, and keeps the port
    /// to itself, but connection attempts are refused (`ECONNREFUSED`), as by a host whose
    /// server is not up yet, until ``startListening()``. Routes can be set meanwhile.
    ///
    /// ```swift
    /// let server = try TestServer(listening: false)
    /// defer { server.shutdown() }
    /// // ... a download of server.url("/file") fails to connect ...
    /// try server.startListening()
    /// // ... and now connects.
    /// ```
    ///
    /// - Parameters:
    ///   - sharedGauge: a gauge that also counts this server's responses in progress,
    ///     for tests where several servers act as the hosts of one system.
    ///   - listening: whether to listen at once. Defaults to `true`.
    /// - Throws: `POSIXError` if the socket cannot be set up.
    public init(sharedGauge: InFlightGauge? = nil, listening: Bool = true) throws {
        core = try ServerCore(sharedGauge: sharedGauge, listening: listening)
    }

    /// Starts listening and accepting connections, for a server made with `listening: false`.
    /// Does nothing if the server listens already or was shut down.
    ///
    /// - Throws: `POSIXError` if the socket cannot listen.
    public func startListening() throws {
        try core.startListening()
    }

    /// The most responses this server had in progress at once.
    public var maximumConcurrentResponses: Int {
        core.gauges[0].maximum
    }

    deinit {
        core.shutdown()
    }

    /// The port the server listens on.
    public var port: Int { core.port }

    /// The URL of `path` on this server: `http://127.0.0.1:<port>` followed by `path`,
    /// which starts with `/` and may carry a query.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Adds or replaces the route for `path` (matched without the query string).
    ///
    /// Setting a route restarts the path's request index, so `route.faults[0]` applies to
    /// the next request, and makes ``Fault/holdAfter(_:)`` hold again after a
    /// ``release(_:)``.
    public func setRoute(_ path: String, _ route: Route) {
        core.withState { $0.setRoute(route, for: path) }
    }

    /// The requests received so far, in arrival order: those for `path`, or all of them
    /// when `path` is `nil`. Each reflects the body bytes sent up to now.
    public func requests(_ path: String? = nil) -> [RecordedRequest] {
        let log = core.withState { $0.log }
        guard let path else { return log }
        return log.filter { $0.path == path }
    }

    /// Lets the responses held by ``Fault/holdAfter(_:)`` on `path` continue; later
    /// responses on `path` do not hold until ``setRoute(_:_:)`` sets its route again.
    public func release(_ path: String) {
        core.release(path)
    }

    /// Returns once at least `count` requests (for `path`, or in all when `nil`) have been
    /// received, without polling.
    ///
    /// Also returns when `timeout` passes, the task is cancelled or the server shuts down,
    /// so that a failing test ends instead of hanging.
    ///
    /// - Returns: Whether `count` requests were received.
    @discardableResult
    public func waitForRequests(
        _ count: Int,
        path: String? = nil,
        timeout: Duration = .seconds(60)
    ) async -> Bool {
        await core.wait(for: .requests(count: count, path: path), timeout: timeout)
    }

    /// Returns once at least `count` body bytes were sent (on all paths), without polling.
    ///
    /// Also returns when `timeout` passes, the task is cancelled or the server shuts down.
    ///
    /// - Returns: Whether `count` bytes were sent.
    @discardableResult
    public func waitForBodyBytes(_ count: Int64, timeout: Duration = .seconds(60)) async -> Bool {
        await core.wait(for: .bodyBytes(count), timeout: timeout)
    }

    /// Runs `action` the moment at least `count` body bytes were sent (on all paths), on the
    /// server's connection thread that sent them, before it sends more; at once if that many
    /// were sent already; never if the server shuts down first. For tests that must act at an
    /// exact point of a transfer (killing a client, say), whatever the load on the machine.
    public func whenBodyBytesReach(_ count: Int64, perform action: @escaping @Sendable () -> Void) {
        core.whenSatisfied(.bodyBytes(count), perform: action)
    }

    /// Stops the server: closes the listener (listening or not), disconnects every client (waking held and
    /// stalled responses), resumes waiters, and waits up to 5 seconds for its threads to
    /// end. Safe to call more than once; also called on `deinit`.
    public func shutdown() {
        core.shutdown()
    }

    /// The body bytes written to clients over the server's lifetime, on all paths.
    public var totalBodyBytesSent: Int64 {
        core.withState { $0.totalBodyBytesSent }
    }
}
