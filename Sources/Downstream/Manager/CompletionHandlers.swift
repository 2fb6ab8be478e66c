import Foundation

/// The manager's completion handlers, which every download of the manager runs when it
/// completes.
final class CompletionHandlers: Sendable {
    typealias Handler = @Sendable (Download, URL) async -> Void

    private let handlers = Locked<[Handler]>([])

    var all: [Handler] {
        handlers.withLock { $0 }
    }

    func add(_ handler: @escaping @Sendable (Download, URL) async -> Void) {
        handlers.withLock { $0.append(handler) }
    }
}
