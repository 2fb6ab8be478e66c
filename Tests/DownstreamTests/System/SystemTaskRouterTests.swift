@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the router of a system session keeps: its downloads and the transfers it adopted belong
/// to the manager and to the downloads, not to it. A download keeps its engines, the router among
/// them: a router that kept them kept a released manager's downloads, its session and itself.
@Suite(.timeLimit(.minutes(1)))
struct SystemTaskRouterTests {
    /// A download as the router sees it.
    final class Owner: SystemTaskOwner {
        let id: DownloadID
        let systemTarget: SystemTransfer.Target?
        init(target: SystemTransfer.Target?) {
            id = target?.downloadID ?? DownloadID()
            systemTarget = target
        }
        func systemTransferChanged(_ transfer: SystemTransfer) async {}
    }

    /// A task of the session, labelled with a download's identifier.
    final class EarlierTask: SystemTask {
        let taskIdentifier: Int
        let taskDescription: String?
        let response: URLResponse? = nil
        let isActive = true
        init(_ identifier: Int, of id: DownloadID) {
            taskIdentifier = identifier
            taskDescription = id.description
        }
    }

    /// A session that starts nothing and lists no task.
    final class Session: SystemSession {
        /// The identifiers of the tasks the router cancelled.
        let cancelled = Locked<[Int]>([])
        var supportsResumeData: Bool { true }
        func start(
            _ request: URLRequest, resumeData: Data?, downloadID: DownloadID, options: SystemTaskOptions,
            attach: @escaping @Sendable (any SystemTask) -> Void
        ) {}
        func cancel(
            _ task: any SystemTask, producingResumeData: Bool, resumeData: @escaping @Sendable (Data?) -> Void
        ) {
            cancelled.withLock { $0.append(task.taskIdentifier) }
        }
        func allTasks(_ body: @escaping @Sendable ([any SystemTask]) -> Void) { body([]) }
    }

    /// The transfer the router hands an owner, held weakly.
    final class Notified: @unchecked Sendable {
        // Safe: only touched while `lock` is held.
        private let lock = NSLock()
        private weak var last: SystemTransfer?
        var transfer: SystemTransfer? { lock.withLock { last } }
        func set(_ transfer: SystemTransfer) { lock.withLock { last = transfer } }
    }

    /// An owner whose transfers the bench's files receive, and what it was handed.
    static func owner(_ bench: TransferBench) -> (Owner, Notified) {
        let notified = Notified()
        let target = SystemEngine.transferTarget(of: bench.target()) { notified.set($0) }
        return (Owner(target: target), notified)
    }

    static func router() -> SystemTaskRouter {
        let router = SystemTaskRouter(
            unclaimedDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(
                "unclaimed-\(UUID().uuidString)"))
        router.session = Session()
        return router
    }

    @Test func anOwnerTheManagerLetGoIsNotKeptAlive() {
        let router = Self.router()
        weak var released: Owner?
        do {
            let owner = Owner(target: nil)
            released = owner
            router.register(owner)
            #expect(router.owner(owner.id) === owner)
        }
        #expect(released == nil, "the router kept the owner alive")
    }

    /// A task of a download that the app and the manager let go of goes on in the system, for the
    /// next manager: its events are not those of a task no download knows (which is cancelled).
    @Test func theTaskOfADownloadThatIsGoneIsLeftToTheSystem() throws {
        let bench = try TransferBench()
        let router = Self.router()
        let session = try #require(router.session as? Session)
        var id: DownloadID?
        do {
            let (owner, _) = Self.owner(bench)
            id = owner.id
            router.register(owner)
        }
        let task = EarlierTask(9, of: try #require(id))
        router.wrote(task, total: 100, expected: 1_000)
        #expect(session.cancelled.value.isEmpty)
        #expect(router.unclaimed.isEmpty)
        // A task no download of the manager ever knew is cancelled and reported.
        router.wrote(EarlierTask(10, of: DownloadID()), total: 100, expected: 1_000)
        #expect(session.cancelled.value == [10])
        #expect(router.unclaimed.map(\.taskIdentifier) == [10])
    }

    @Test func aTransferAdoptedOnceTheTasksWereListedIsNotKeptAfterItCompleted() throws {
        let bench = try TransferBench()
        let router = Self.router()
        let (owner, notified) = Self.owner(bench)
        router.register(owner)
        #expect(router.reattach([]).isEmpty)
        weak var adopted: SystemTransfer?
        do {
            // A task of an earlier process, whose first event comes now: adopted.
            let task = EarlierTask(7, of: owner.id)
            router.wrote(task, total: 100, expected: 1_000)
            adopted = notified.transfer
            #expect(adopted != nil)
            router.completed(task, error: URLError(.networkConnectionLost))
        }
        #expect(adopted == nil, "the router kept the transfer it adopted")
    }

    @Test func aDetachedRouterForgetsTheTransfersItAdopted() throws {
        let bench = try TransferBench()
        let router = Self.router()
        let (owner, notified) = Self.owner(bench)
        router.register(owner)
        weak var adopted: SystemTransfer?
        do {
            // Adopted before the session listed its tasks: kept for the listing.
            router.wrote(EarlierTask(8, of: owner.id), total: 100, expected: 1_000)
            adopted = notified.transfer
            #expect(adopted != nil)
        }
        router.detach()
        #expect(adopted == nil, "the detached router kept the transfer it adopted")
    }
}
