/// A closure that is not `Sendable`, kept and called on the main actor: how a completion handler
/// that UIKit hands over on the main actor (`@escaping () -> Void`) is kept by code that runs
/// elsewhere. Only the main actor can call it, so it may be shared.
@MainActor
final class MainActorClosure {
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }

    func call() {
        body()
    }
}
