import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// How a request is held back while its receiver cannot take body bytes
    /// (``BodyReception/later``): the one difference between the platforms in how URLSession's
    /// body reaches a receiver.
    enum HoldBack: Sendable {
        /// The delegate callback waits until the receiver takes the bytes, and with it the
        /// session's delegate queue and, on Linux, Foundation's work queue (``BoundedDelegateQueue``
        /// stops URLSession from reading): every request of the process waits. The only way on
        /// Linux, where `suspend()` aborts the transfer and `resume()` sends the request again
        /// from byte 0.
        case blockingDelegateQueue
        /// The refused bytes are kept, the task is suspended and the callback returns at once;
        /// chunks still in flight are kept behind them, and all are handed over again, in order,
        /// on the delegate queue after ``TransportTask/resumeBody()``, before the task is resumed
        /// (``SessionTask/BodyFlow``). Only that request waits. For Apple platforms, where a data
        /// task really pauses, and a delegate queue that waits may hold a CFNetwork thread.
        case suspendingTask

        /// Suspending the task on Apple platforms, the blocking delegate queue elsewhere.
        static var platformDefault: HoldBack {
            #if canImport(Darwin)
                .suspendingTask
            #else
                .blockingDelegateQueue
            #endif
        }
    }

    /// What a ``SessionTask`` asks of its URLSession task: `URLSessionTask` itself, or a scripted
    /// task in tests (which drive the suspending path on Linux, where `suspend()` cannot be used).
    protocol ControlledTask: AnyObject, Sendable {
        func resume()
        func suspend()
        func cancel()
    }
}

extension URLSessionTask: URLSessionTransport.ControlledTask {}
