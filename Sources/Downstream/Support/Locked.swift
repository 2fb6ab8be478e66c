import Foundation

/// A value guarded by a lock, shared by every copy.
///
/// `Synchronization.Mutex` needs iOS 18 and macOS 15, and `NSLock` costs two more heap objects
/// (the lock, and its `pthread_mutex_t`) next to the value: for the many small locks of thousands
/// of queued downloads, this keeps value and mutex in one allocation. Keep the closures short:
/// never call user code, resume a continuation or finish a stream while holding the lock.
package struct Locked<State>: @unchecked Sendable {
    // Safe: the value is only touched inside `withLock`, which holds the mutex.
    private final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    package init(_ state: State) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in state }
        // `create` makes an instance of the class it is called on.
        storage = unsafeDowncast(buffer, to: Storage.self)
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { state, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}

extension Locked where State: Sendable {
    /// A copy of the current value.
    var value: State {
        withLock { $0 }
    }
}

extension Locked where State == Bool {
    /// Sets the flag; whether this call set it (false when it was set already): for what must
    /// happen once, whoever asks first.
    func setFirst() -> Bool {
        withLock { flag in
            defer { flag = true }
            return !flag
        }
    }
}
