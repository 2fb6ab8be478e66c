import Dispatch

/// Where blocking file work runs (lengths, truncations, records, digests read again from the
/// disk): on threads of our own, never on an actor's executor or the caller's thread.
enum FileWork {
    private static let queue = DispatchQueue(label: "Downstream.file-work", attributes: .concurrent)

    /// Runs `work` on a file-work thread.
    static func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
