import Dispatch

/// Where blocking file work runs (lengths, truncations, records, digests read again from the
/// disk): on threads of our own, never on an actor's executor or the caller's thread.
package enum FileWork {
    /// The file-work threads' queue (concurrent). Only ``run(_:)`` and ``value(_:)`` put work on it.
    static let queue = DispatchQueue(label: "Downstream.file-work", attributes: .concurrent)

    /// Runs `work` on a file-work thread.
    package static func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Runs `work` on a file-work thread and returns what it returns: a task that must read a
    /// whole file waits for it without holding one of Swift's few pool threads meanwhile.
    static func value<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            queue.async {
                do throws(Failure) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        // Not `result.get()`: it throws `any Error` in the iOS 16 SDK's standard library.
        switch result {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}
