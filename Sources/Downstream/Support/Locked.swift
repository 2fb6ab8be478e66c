import Foundation

/// A value guarded by a lock.
///
/// Downstream needs a lock that works on every platform it supports; `Synchronization.Mutex`
/// needs iOS 18 and macOS 15, so this wraps `NSLock`. Keep the closures short: never call
/// user code, resume a continuation or finish a stream while holding it.
final class Locked<State>: @unchecked Sendable {
    // Safe: `state` is only touched inside `withLock`, which holds `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

extension Locked where State: Sendable {
    /// A copy of the current value.
    var value: State {
        withLock { $0 }
    }
}
