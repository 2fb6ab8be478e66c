/// The mutable state of a ``TestServer``: routes, the request log, open connections, held
/// responses and `waitForRequests` waiters. A plain value mutated only under the server's
/// lock; methods return what must happen outside the lock (continuations to resume).
struct ServerState {
    typealias Continuation = Wake

    /// Whom to tell whether a waiter's condition came to hold: a suspended task, or an action
    /// run at once on the thread that made it hold.
    struct Wake: Sendable {
        private let body: @Sendable (Bool) -> Void

        init(_ continuation: CheckedContinuation<Bool, Never>) {
            body = { continuation.resume(returning: $0) }
        }

        init(action: @escaping @Sendable (Bool) -> Void) {
            body = action
        }

        func resume(returning value: Bool) {
            body(value)
        }
    }

    /// What a waiter waits for.
    enum Condition {
        /// At least `count` requests (for `path`, or for all paths).
        case requests(count: Int, path: String?)
        /// At least `count` body bytes sent, on all paths.
        case bodyBytes(Int64)
    }

    /// A task suspended in ``TestServer/waitForRequests(_:path:timeout:)`` or
    /// ``TestServer/waitForBodyBytes(_:timeout:)``.
    struct Waiter {
        var condition: Condition
        var continuation: Continuation
    }

    /// What the listening socket does.
    enum ListenerStage {
        /// Bound without listening: connection attempts are refused. Shutdown closes it.
        case bound
        /// Listening; the accept thread owns the socket and closes it when it ends.
        case accepting
    }

    /// What ``ServerState/beginShutdown()`` leaves to do.
    struct ShutdownAction {
        /// Whether this call started the shutdown (later calls only wait).
        var isFirst: Bool
        /// Whether the caller closes the listening socket: it never listened, so no accept
        /// thread will.
        var closesListener: Bool
        /// Sockets of open connections, to shut down while still under the lock.
        var connectionSockets: [Int32]
        /// Waiters to resume with `false`.
        var waiters: [Continuation]
    }

    private(set) var isShutDown = false
    private(set) var listenerStage = ListenerStage.bound
    private(set) var log: [RecordedRequest] = []
    private(set) var totalBodyBytesSent: Int64 = 0

    private var routes: [String: Route] = [:]
    private var requestCounts: [String: Int] = [:]
    private var receivedCounts: [String: Int] = [:]
    private var releasedPaths: Set<String> = []
    private var queryBudgets = QueryBudgets()
    /// The Digest checks of the routes that ask for it, by path.
    private var digestVerifiers: [String: DigestVerifier] = [:]
    private var connections: [Int: Int32] = [:]
    private var nextConnection = 0
    private var holds: [Int: (path: String, wakeDescriptor: Int32)] = [:]
    private var nextHold = 0
    private var waiters: [UInt64: Waiter] = [:]
    private var cancelledWaiters: Set<UInt64> = []
    private var nextWaiter: UInt64 = 0

    // MARK: Routes and requests

    /// Adds or replaces the route for `path`, restarting its request count (and so its
    /// faults), forgetting an earlier ``release(_:)`` and renewing its queries' budgets.
    mutating func setRoute(_ route: Route, for path: String) {
        routes[path] = route
        requestCounts[path] = 0
        releasedPaths.remove(path)
        queryBudgets.renew(path)
        digestVerifiers[path] = nil
    }

    /// Records a request and plans its answer. Returns the plan, the request's position in
    /// the log, and the waiters it satisfies.
    mutating func receive(
        _ request: HTTPRequestHead,
        connection: Int,
        date: String
    ) -> (plan: ResponsePlan, logPosition: Int, satisfied: [Continuation]) {
        let path = request.path
        let index = requestCounts[path, default: 0]
        requestCounts[path] = index + 1
        let route = routes[path]
        let queryBudget = route?.queryExpiresAfter.map { budget in
            queryBudgets.remaining(for: request.query, on: path, budget: budget)
        }
        var digestChallenges: [String]?
        if let digest = route?.requiredDigest {
            let verdict = digestVerifiers[path, default: DigestVerifier()].check(
                method: request.method, uris: [request.target], authorization: request.header("authorization"),
                settings: digest)
            if case .refused(let challenges) = verdict { digestChallenges = challenges }
        }
        let plan = ResponsePlanner.plan(
            for: request,
            route: route,
            index: index,
            queryBudget: queryBudget,
            digestChallenges: digestChallenges,
            date: date
        )

        let range = request.header("range").flatMap(ByteRangeRequest.init(header:))
        var recorded = RecordedRequest(
            index: index,
            method: request.method,
            path: path,
            target: request.target,
            headers: request.headers,
            status: plan.status,
            bodyBytesSent: 0,
            connection: connection
        )
        switch range {
        case .from(let start, let end)?:
            recorded.rangeStart = start
            recorded.rangeEnd = end
        case .suffix(let length)?:
            recorded.rangeSuffixLength = length
        case nil:
            break
        }
        log.append(recorded)
        receivedCounts[path, default: 0] += 1
        if plan.queryCharge > 0, let query = request.query {
            queryBudgets.reserve(plan.queryCharge, for: query, on: path, response: log.count - 1)
        }

        return (plan, log.count - 1, takeSatisfiedWaiters())
    }

    /// Counts body bytes written for the response logged at `logPosition`; returns the waiters
    /// this satisfies.
    mutating func addBodyBytes(_ count: Int, logPosition: Int) -> [Continuation] {
        log[logPosition].bodyBytesSent += Int64(count)
        totalBodyBytesSent += Int64(count)
        return waiters.isEmpty ? [] : takeSatisfiedWaiters()
    }

    /// Ends the response logged at `logPosition` for its expiring query: the bytes it
    /// reserved but did not send can be used again.
    mutating func settleQueryCharge(logPosition: Int) {
        queryBudgets.settle(response: logPosition, sent: log[logPosition].bodyBytesSent)
    }

    private mutating func takeSatisfiedWaiters() -> [Continuation] {
        var satisfied: [Continuation] = []
        for (id, waiter) in waiters where isSatisfied(waiter.condition) {
            satisfied.append(waiter.continuation)
            waiters[id] = nil
        }
        return satisfied
    }

    // MARK: Listening

    /// Whether the listener may start listening: it is only bound, and the server does not stop.
    var mayStartAccepting: Bool {
        listenerStage == .bound && !isShutDown
    }

    /// Records that the listener listens and an accept thread owns it, started under the same
    /// lock as the check of ``mayStartAccepting``.
    mutating func startedAccepting() {
        guard mayStartAccepting else {
            preconditionFailure("the listener started accepting in stage \(listenerStage), shut down: \(isShutDown)")
        }
        listenerStage = .accepting
    }

    // MARK: Connections

    /// Registers an accepted socket; `nil` once the server is shutting down.
    mutating func addConnection(socket: Int32) -> Int? {
        guard !isShutDown else { return nil }
        let id = nextConnection
        nextConnection += 1
        connections[id] = socket
        return id
    }

    /// Forgets a connection before its socket is closed.
    mutating func removeConnection(_ id: Int) {
        connections[id] = nil
    }

    // MARK: Held responses

    /// Registers a response about to wait for ``release(_:)`` on `path`. Returns the hold's
    /// id, or `nil` when it must not wait (the path was released, or the server stops).
    mutating func beginHold(path: String, wakeDescriptor: Int32) -> Int? {
        guard !isShutDown, !releasedPaths.contains(path) else { return nil }
        let id = nextHold
        nextHold += 1
        holds[id] = (path, wakeDescriptor)
        return id
    }

    /// Forgets a hold before its wake pipe is closed.
    mutating func endHold(_ id: Int) {
        holds[id] = nil
    }

    /// Marks `path` released and returns the wake pipes of the responses held on it, to be
    /// signalled while still under the lock (their owners close them only after
    /// ``endHold(_:)``).
    mutating func release(_ path: String) -> [Int32] {
        releasedPaths.insert(path)
        let released = holds.filter { $0.value.path == path }
        for id in released.keys {
            holds[id] = nil
        }
        return released.values.map(\.wakeDescriptor)
    }

    // MARK: Waiting for requests

    /// A fresh id for a waiter, made before suspending.
    mutating func makeWaiterID() -> UInt64 {
        nextWaiter += 1
        return nextWaiter
    }

    /// Parks a waiter unless it is already satisfied, cancelled, or the server stopped.
    /// Returns the continuation to resume at once (with the returned value), if any.
    mutating func addWaiter(
        id: UInt64,
        condition: Condition,
        continuation: Continuation
    ) -> (continuation: Continuation, value: Bool)? {
        if isSatisfied(condition) {
            return (continuation, true)
        }
        if cancelledWaiters.remove(id) != nil || isShutDown {
            return (continuation, false)
        }
        waiters[id] = Waiter(condition: condition, continuation: continuation)
        return nil
    }

    /// Removes a waiter that was cancelled or timed out; remembers the id if it was not
    /// parked yet, so that ``addWaiter(id:condition:continuation:)`` does not park it.
    mutating func removeWaiter(id: UInt64, rememberIfAbsent: Bool) -> Continuation? {
        if let waiter = waiters.removeValue(forKey: id) {
            return waiter.continuation
        }
        if rememberIfAbsent {
            cancelledWaiters.insert(id)
        }
        return nil
    }

    /// Whether `condition` holds.
    func isSatisfied(_ condition: Condition) -> Bool {
        switch condition {
        case .requests(let count, let path):
            let received = path.map { receivedCounts[$0, default: 0] } ?? log.count
            return received >= count
        case .bodyBytes(let count):
            return totalBodyBytesSent >= count
        }
    }

    // MARK: Shutdown

    /// Marks the server as stopping and hands back what to wake.
    mutating func beginShutdown() -> ShutdownAction {
        guard !isShutDown else {
            return ShutdownAction(isFirst: false, closesListener: false, connectionSockets: [], waiters: [])
        }
        isShutDown = true
        let parked = waiters.values.map(\.continuation)
        waiters.removeAll()
        return ShutdownAction(
            isFirst: true,
            closesListener: listenerStage == .bound,
            connectionSockets: Array(connections.values),
            waiters: parked
        )
    }
}
