import Foundation

/// The listening socket and the connection sockets of a small server of the tests (a proxy, a
/// TLS front), so that stopping it ends them all. Every close and every shutdown happens under one
/// lock: a socket number is never shut down after it was closed (and perhaps given to another
/// socket of the process, another test's).
final class ConnectionSockets: @unchecked Sendable {
    // Safe: `state` is touched only under `lock`.
    let listener: Int32
    private let lock = NSLock()
    private var state = State()

    private struct State {
        var sockets: Set<Int32> = []
        var isShutDown = false
        var isListenerClosed = false
    }

    private init(listener: Int32) {
        self.listener = listener
    }

    /// A listener on a free port of 127.0.0.1, and its port.
    static func listening() throws -> (sockets: ConnectionSockets, port: Int) {
        let (descriptor, port) = try POSIXSocket.makeBoundSocket(reuseAddress: true)
        try POSIXSocket.listen(descriptor)
        return (ConnectionSockets(listener: descriptor), port)
    }

    /// Accepts connections on a thread of its own until ``shutDown()``: each is tracked and
    /// handed, with its number (from 0), to `serve` on a thread of its own, which must
    /// ``close(_:)`` it.
    func accept(_ serve: @escaping @Sendable (_ client: Int32, _ number: Int) -> Void) {
        Thread.detachNewThread { [self] in
            var number = 0
            while true {
                let events = POSIXSocket.poll([listener], timeout: -1)
                if isShutDown || events[0] & Int16(POLLNVAL) != 0 { break }
                let client = POSIXSocket.accept(listener)
                guard client >= 0 else { continue }
                guard track(client) else { break }
                let current = number
                number += 1
                Thread.detachNewThread { serve(client, current) }
            }
            closeListener()
        }
    }

    /// Whether ``shutDown()`` was called.
    var isShutDown: Bool {
        lock.withLock { state.isShutDown }
    }

    /// Keeps `socket` to shut down in ``shutDown()``; false once shut down (then it is closed).
    func track(_ socket: Int32) -> Bool {
        let tracked = lock.withLock {
            guard !state.isShutDown else { return false }
            state.sockets.insert(socket)
            return true
        }
        if !tracked { POSIXSocket.close(socket) }
        return tracked
    }

    /// Forgets and closes a tracked socket.
    func close(_ socket: Int32) {
        lock.withLock {
            state.sockets.remove(socket)
            POSIXSocket.close(socket)
        }
    }

    /// Closes the listener, once its accepting thread is done with it.
    private func closeListener() {
        lock.withLock {
            state.isListenerClosed = true
            POSIXSocket.close(listener)
        }
    }

    /// Shuts every connection down, and the listener, which wakes the threads waiting on them.
    func shutDown() {
        lock.withLock {
            state.isShutDown = true
            for socket in state.sockets { POSIXSocket.shutdown(socket, reading: true) }
            if !state.isListenerClosed { POSIXSocket.shutdown(listener, reading: true) }
        }
    }
}
