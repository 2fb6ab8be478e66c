import Foundation

/// Runs blocking work (a raw socket client, say) on a thread of its own and waits for it
/// without holding a thread of Swift's concurrency pool, which has one per core: a blocked
/// client that waits for the test's next step must leave a thread for that step.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
