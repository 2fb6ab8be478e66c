import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport task of one request and what was asked of it, from any thread: a cancel asked
/// before the task exists is carried out as it arrives, and the task is let go once the request
/// ended (it holds its receiver until then). One for each ``RangedTransfer`` and ``SegmentRequest``.
final class RequestControl: Sendable {
    private struct State {
        var task: (any TransportTask)?
        /// The owner asked the request to stop (pause, cancel): it ends as stopped.
        var isStopRequested = false
        /// The task is to be cancelled, for any reason.
        var isCancelRequested = false
        var hasEnded = false
    }

    private let state = Locked(State())

    /// Sends `request` through `transport` to `receiver`, and keeps the task.
    func start(_ request: URLRequest, on transport: any Transport, receiver: any TransportReceiver) {
        let task = transport.start(request, receiver: receiver)
        let isCancelRequested = state.withLock { state in
            if !state.hasEnded { state.task = task }
            return state.isCancelRequested
        }
        if isCancelRequested { task.cancel() }
    }

    /// Asks the request to stop: it is cancelled, and ``isStopRequested`` says the owner wanted it.
    func stop() {
        state.withLock { $0.isStopRequested = true }
        cancel()
    }

    /// Cancels the task, now or as soon as it is there.
    func cancel() {
        let task = state.withLock { state in
            state.isCancelRequested = true
            return state.task
        }
        task?.cancel()
    }

    /// Whether the owner asked the request to stop.
    var isStopRequested: Bool {
        state.withLock { $0.isStopRequested }
    }

    /// The request ended: lets the task go, and returns it.
    @discardableResult
    func end() -> (any TransportTask)? {
        state.withLock { state in
            defer { state.task = nil }
            state.hasEnded = true
            return state.task
        }
    }
}
