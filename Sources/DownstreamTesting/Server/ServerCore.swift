import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine behind a ``TestServer``: the listening socket, the accept thread, the
/// connection threads and the shared state. Threads hold the core, not the `TestServer`, so
/// that dropping the last `TestServer` reference shuts everything down from `deinit`.
final class ServerCore: @unchecked Sendable {  // mutable state is only touched under `lock`; the rest is immutable
    /// The port the listener is bound to.
    let port: Int

    /// Becomes permanently readable when the server stops; every blocking wait polls it.
    let stopPipe: WakePipe

    private let listener: Int32
    private let lock = NSLock()
    private var state = ServerState()
    private let threads = DispatchGroup()

    /// How long ``shutdown()`` waits for the threads to finish.
    static var shutdownTimeout: DispatchTimeInterval { .seconds(5) }

    /// The server's own gauge of responses in progress, and a shared one if given.
    let gauges: [InFlightGauge]

    /// Binds the listener; if `listening`, listens and starts accepting too.
    init(sharedGauge: InFlightGauge?, listening: Bool) throws {
        gauges = [InFlightGauge()] + (sharedGauge.map { [$0] } ?? [])
        let (listener, port) = try POSIXSocket.makeBoundSocket(reuseAddress: listening)
        do {
            self.stopPipe = try WakePipe.make()
        } catch {
            _ = close(listener)
            throw error
        }
        self.listener = listener
        self.port = port
        if listening {
            do {
                try startListening()
            } catch {
                shutdown()
                throw error
            }
        }
    }

    /// Runs `body` with exclusive access to the state.
    func withState<Result>(_ body: (inout ServerState) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// Makes the listener listen and starts the accept thread, unless it listens already or
    /// the server stops.
    func startListening() throws {
        try withState { state in
            guard state.mayStartAccepting else { return }
            // Under the lock, so that a concurrent shutdown either closes a socket that never
            // listened or finds an accept thread that will.
            try POSIXSocket.listen(listener)
            state.startedAccepting()
            startThread(named: "TestServer \(port) accept") { core in core.acceptLoop() }
        }
    }

    // MARK: Threads

    private func startThread(named name: String, _ body: @escaping @Sendable (ServerCore) -> Void) {
        threads.enter()
        let thread = Thread { [self] in
            body(self)
            self.threads.leave()
        }
        thread.name = name
        thread.start()
    }

    private func acceptLoop() {
        defer { _ = close(listener) }
        while true {
            let events = POSIXSocket.poll([listener, stopPipe.readEnd], timeout: -1)
            if events[1] != 0 {
                closeBacklog()
                return
            }
            guard events[0] != 0 else { continue }
            let socket = POSIXSocket.accept(listener)
            if socket < 0 {
                switch errno {
                case EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: back off briefly instead of spinning.
                    _ = POSIXSocket.poll([stopPipe.readEnd], timeout: 10)
                    continue
                default:
                    return
                }
            }
            POSIXSocket.setNoDelay(socket)
            guard let id = withState({ $0.addConnection(socket: socket) }) else {
                POSIXSocket.discardQueuedInput(socket)
                POSIXSocket.close(socket)
                closeBacklog()
                return
            }
            startThread(named: "TestServer \(port) connection \(id)") { core in
                Connection(core: core, socket: socket, id: id).run()
            }
        }
    }

    /// Accepts and closes, with a FIN, the connections still waiting in the listen queue:
    /// closing the listener over them would reset them.
    private func closeBacklog() {
        while true {
            let socket = POSIXSocket.accept(listener)
            if socket < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            POSIXSocket.discardQueuedInput(socket)
            POSIXSocket.close(socket)
        }
    }

    // MARK: Used by connections

    /// Records a request and plans its answer; resumes the waiters it satisfies.
    func receive(_ request: HTTPRequestHead, connection: Int) -> (plan: ResponsePlan, logPosition: Int) {
        let date = HTTPDate.now()
        let (plan, position, satisfied) = withState { $0.receive(request, connection: connection, date: date) }
        for continuation in satisfied {
            continuation.resume(returning: true)
        }
        return (plan, position)
    }

    /// Counts body bytes sent for the response at `logPosition`.
    func addBodyBytes(_ count: Int, logPosition: Int) {
        let satisfied = withState { $0.addBodyBytes(count, logPosition: logPosition) }
        for continuation in satisfied {
            continuation.resume(returning: true)
        }
    }

    /// Gives back to its expiring query what the response at `logPosition` reserved but did
    /// not send, now that it ended.
    func settleQueryCharge(logPosition: Int) {
        withState { $0.settleQueryCharge(logPosition: logPosition) }
    }

    /// Forgets a connection; its thread closes the socket afterwards.
    func removeConnection(_ id: Int) {
        withState { $0.removeConnection(id) }
    }

    /// Releases the responses held on `path`, now and until the route is set again.
    func release(_ path: String) {
        withState { state in
            // Signalled under the lock: a holder closes its pipe only after `endHold`.
            for descriptor in state.release(path) {
                WakePipe.signal(writeEnd: descriptor)
            }
        }
    }

    /// Sleeps until `deadline` or until the server stops; returns `false` if it stopped.
    func sleep(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return true }
            let events = POSIXSocket.poll([stopPipe.readEnd], timeout: remaining.pollTimeout)
            if events[0] != 0 { return false }
        }
    }

    // MARK: Waiting

    /// Suspends until `condition` holds, the timeout passes, the task is cancelled or the server
    /// stops. Returns whether the condition holds.
    func wait(for condition: ServerState.Condition, timeout: Duration) async -> Bool {
        let id = withState { $0.makeWaiterID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate = withState { state in
                    state.addWaiter(id: id, condition: condition, continuation: ServerState.Wake(continuation))
                }
                if let immediate {
                    immediate.continuation.resume(returning: immediate.value)
                    return
                }
                let nanoseconds =
                    timeout.components.seconds * 1_000_000_000
                    + timeout.components.attoseconds / 1_000_000_000
                let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds))
                DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in
                    let timedOut = self?.withState { $0.removeWaiter(id: id, rememberIfAbsent: false) }
                    timedOut?.resume(returning: false)
                }
            }
        } onCancel: {
            let cancelled = withState { $0.removeWaiter(id: id, rememberIfAbsent: true) }
            cancelled?.resume(returning: false)
        }
    }

    /// Runs `action` on the server thread that makes `condition` hold, at that moment (or at
    /// once if it holds already); never if the server stops first.
    func whenSatisfied(_ condition: ServerState.Condition, perform action: @escaping @Sendable () -> Void) {
        let wake = ServerState.Wake(action: { holds in
            if holds { action() }
        })
        let immediate = withState { state in
            state.addWaiter(id: state.makeWaiterID(), condition: condition, continuation: wake)
        }
        immediate?.continuation.resume(returning: immediate?.value ?? false)
    }

    // MARK: Shutdown

    /// Stops accepting (or closes a listener that never listened), wakes and disconnects every
    /// connection, resumes waiters, and waits (at most ``shutdownTimeout``) for all threads to
    /// end. Idempotent.
    func shutdown() {
        let action = withState { state in
            let action = state.beginShutdown()
            if action.closesListener {
                _ = close(listener)
            }
            if action.isFirst {
                stopPipe.closeWriteEnd()
                // Under the lock: a connection closes its socket only after leaving the state.
                for socket in action.connectionSockets {
                    POSIXSocket.shutdown(socket, reading: true)
                }
            }
            return action
        }
        for continuation in action.waiters {
            continuation.resume(returning: false)
        }
        let finished = threads.wait(timeout: .now() + ServerCore.shutdownTimeout) == .success
        if action.isFirst && finished {
            _ = close(stopPipe.readEnd)
        }
    }
}
