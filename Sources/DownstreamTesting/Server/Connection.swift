import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One accepted connection, served on its own thread with blocking I/O: reads requests,
/// writes responses, and closes the socket the way the last response asks.
final class Connection {
    /// How a connection ends.
    enum Ending {
        /// Send a FIN, drain what the client still sends, then close, so that unread input
        /// never turns the close into a reset that could destroy the response's tail.
        case graceful
        /// Close abortively, so the client gets a reset.
        case reset
        /// The client is gone or the server stops: just close.
        case immediate
    }

    /// What reading the next request produced.
    enum ReadResult {
        case request(HTTPRequestHead)
        case closed
        case tooLarge
        case malformed
    }

    let core: ServerCore
    let socket: Int32
    let id: Int

    /// Bytes received but not consumed yet (the start of a pipelined request, say).
    var pending: [UInt8] = []
    /// Ends the response in the gauges; called once, just before the response's last bytes are
    /// sent (see ``Connection/write(_:path:logPosition:)``).
    var endInGauges: (() -> Void)?
    /// The end of the body of the response being written, when its last send ends it.
    var lastBodyByte: Int64?
    /// Bytes a response sent too many (``Fault/trailingBytes(_:)``), sent when the next request
    /// on the connection is answered: the client has finished the first response by then, and
    /// reads them where the next status line should be.
    var owedTrailingBytes = 0

    private let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)

    /// How long a graceful close waits for the client to close its side.
    static let lingerTimeout: Int32 = 2000

    init(core: ServerCore, socket: Int32, id: Int) {
        self.core = core
        self.socket = socket
        self.id = id
    }

    deinit {
        receiveBuffer.deallocate()
    }

    /// Serves requests until the connection ends, then closes the socket.
    func run() {
        let ending = serve()
        switch ending {
        case .graceful:
            POSIXSocket.shutdown(socket, reading: false)
            drainUntilClosed()
            POSIXSocket.discardQueuedInput(socket)
        case .reset:
            POSIXSocket.setResetOnClose(socket)
        case .immediate:
            POSIXSocket.discardQueuedInput(socket)
        }
        core.removeConnection(id)
        _ = close(socket)
    }

    private func serve() -> Ending {
        while true {
            switch readRequest() {
            case .closed:
                return .immediate
            case .tooLarge:
                return answerAndClose(431)
            case .malformed:
                return answerAndClose(400)
            case .request(let request):
                guard skipRequestBody(request.contentLength) else { return .immediate }
                let (plan, logPosition) = core.receive(request, connection: id)
                let gauges = core.gauges
                gauges.forEach { $0.enter() }
                endInGauges = { gauges.forEach { $0.leave() } }
                let outcome = write(plan, path: request.path, logPosition: logPosition)
                leaveGauges()
                if plan.queryCharge > 0 {
                    // Before the connection closes, so a client that saw the end sees the budget.
                    core.settleQueryCharge(logPosition: logPosition)
                }
                switch outcome {
                case .completed:
                    if !plan.keepAlive { return .graceful }
                case .closeCleanly:
                    return .graceful
                case .reset:
                    return .reset
                case .clientGone:
                    return .immediate
                }
            }
        }
    }

    /// Ends the current response in the gauges, if it was not yet.
    func leaveGauges() {
        endInGauges?()
        endInGauges = nil
    }

    /// Answers a request that could not be read, without recording it.
    private func answerAndClose(_ status: Int) -> Ending {
        var plan = ResponsePlanner.text(status, isHead: false, keepAlive: false, date: HTTPDate.now())
        plan.headers.append(("Connection", "close"))
        guard POSIXSocket.sendAll(socket, plan.headBytes()) else { return .immediate }
        plan.body.write(plan.bodyRange) { _ = POSIXSocket.sendAll(socket, $0) }
        return .graceful
    }

    // MARK: Reading

    /// Reads up to the end of the next request head.
    private func readRequest() -> ReadResult {
        var searchFrom = 0
        while true {
            while pending.count >= 2 && pending[0] == 13 && pending[1] == 10 {
                pending.removeFirst(2)  // stray line breaks between requests
                searchFrom = 0
            }
            if let end = HTTPRequestParser.headEnd(in: pending, searchingFrom: searchFrom) {
                let head = pending[0..<end]
                defer { pending.removeFirst(end) }
                guard end <= HTTPRequestParser.maximumHeadSize else { return .tooLarge }
                return HTTPRequestParser.parse(head).map(ReadResult.request) ?? .malformed
            }
            if pending.count > HTTPRequestParser.maximumHeadSize {
                return .tooLarge
            }
            searchFrom = max(0, pending.count - 3)
            guard receiveMore() else { return .closed }
        }
    }

    /// Appends what the socket has to ``pending``; `false` at end of stream or on error.
    func receiveMore() -> Bool {
        let count = POSIXSocket.receive(socket, into: receiveBuffer)
        guard count > 0 else { return false }
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<count]))
        return true
    }

    /// Consumes and drops a request body of `length` bytes.
    private func skipRequestBody(_ length: Int64) -> Bool {
        var remaining = length
        while remaining > 0 {
            if pending.isEmpty {
                guard receiveMore() else { return false }
            }
            let dropped = Int.clamped(remaining, atMost: pending.count)
            pending.removeFirst(dropped)
            remaining -= Int64(dropped)
        }
        return true
    }

    /// After our FIN: reads and drops input until the client closes, the server stops, or
    /// ``lingerTimeout`` passes.
    private func drainUntilClosed() {
        let deadline = ContinuousClock.now + .milliseconds(Int(Connection.lingerTimeout))
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            let events = POSIXSocket.poll([socket, core.stopPipe.readEnd], timeout: remaining.pollTimeout)
            if events[1] != 0 { return }
            if events[0] != 0 {
                guard POSIXSocket.receive(socket, into: receiveBuffer) > 0 else { return }
            }
        }
    }

    // MARK: Waiting inside a response

    /// Waits until the client disconnects or the server stops, dropping any input.
    func waitForDisconnect() {
        while true {
            let events = POSIXSocket.poll([socket, core.stopPipe.readEnd], timeout: -1)
            if events[1] != 0 { return }
            if events[0] != 0 {
                guard POSIXSocket.receive(socket, into: receiveBuffer) > 0 else { return }
            }
        }
    }

    /// Waits until `path` is released; returns `false` if the client disconnected or the
    /// server stopped first. Input that arrives meanwhile is kept for the next request.
    func waitForRelease(of path: String) -> Bool {
        guard let wake = try? WakePipe.make() else { return true }
        defer { wake.closeBoth() }
        guard let hold = core.withState({ $0.beginHold(path: path, wakeDescriptor: wake.writeEnd) }) else {
            return true
        }
        defer { core.withState { $0.endHold(hold) } }
        while true {
            let events = POSIXSocket.poll([wake.readEnd, socket, core.stopPipe.readEnd], timeout: -1)
            if events[0] != 0 { return true }
            if events[2] != 0 { return false }
            if events[1] != 0 {
                guard receiveMore() else { return false }
            }
        }
    }

    /// Waits (at most 30 s, or until the server stops) until the peer acknowledged everything
    /// sent, so that a reset does not discard bytes the fault promised to deliver. A client that
    /// reads slowly still gets them all: on a busy CI machine, with 2 s, a test's client got
    /// another body than the megabyte promised. A client that went away leaves nothing to wait
    /// for: its reset empties the queue.
    func waitUntilAcknowledged() {
        let deadline = ContinuousClock.now + .seconds(30)
        while let unacknowledged = POSIXSocket.unacknowledgedByteCount(socket), unacknowledged > 0,
            ContinuousClock.now < deadline
        {
            let events = POSIXSocket.poll([core.stopPipe.readEnd], timeout: 1)
            if events[0] != 0 { return }
        }
    }
}
