import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLSession with its single delegate, its bounded delegate queue, and the one serial queue
/// from which every URLSession control call is made.
///
/// On Linux, creating, resuming and cancelling tasks can block for seconds while a transfer is
/// held back by a slow disk, and deadlocks when made from the delegate queue. So actors and the
/// delegate never make these calls inline: they ask the control queue and go on.
final class TransferSession: Sendable {
    let delegate = SessionDelegate()
    private let session: URLSession
    private let controlQueue: DispatchQueue

    init(identifier: String, configuration: URLSessionConfiguration, pendingCallbackLimit: Int) {
        let delegateQueue = BoundedDelegateQueue(
            limit: pendingCallbackLimit, name: "Downstream.\(identifier).delegate")
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
        controlQueue = DispatchQueue(label: "Downstream.\(identifier).control")
    }

    deinit {
        invalidate()
    }

    /// Cancels what still runs and releases the session.
    func invalidate() {
        let session = self.session
        controlQueue.async {
            session.invalidateAndCancel()
        }
    }

    /// Creates a data task for `request`, routes its callbacks to `handler`, and starts it.
    func start(_ request: URLRequest, handler: RangedTransfer) {
        controlQueue.async { [session, delegate] in
            let task = session.dataTask(with: request)
            delegate.register(handler, for: task.taskIdentifier)
            let isCancelled = handler.attach(task)
            task.resume()
            if isCancelled {
                task.cancel()
            }
        }
    }

    /// Cancels `task`. URLSession may deliver the cancellation late, or not at all if the task
    /// completes first: callers wait for the task's completion, whatever it is.
    func cancel(_ task: URLSessionTask) {
        controlQueue.async {
            task.cancel()
        }
    }
}
