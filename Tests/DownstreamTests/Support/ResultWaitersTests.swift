import Foundation
import Testing

@testable import Downstream

@Suite struct ResultWaitersTests {
    let file = URL(fileURLWithPath: "/tmp/result.bin")

    @Test func everyWaiterGetsTheResult() async throws {
        let waiters = ResultWaiters<URL, DownloadError>()
        async let first = waiters.wait()
        async let second = waiters.waitIgnoringCancellation()
        waiters.resolve(.success(file))
        #expect(try await first == file)
        #expect(try await second.get() == file)
        #expect(try await waiters.wait() == file)
    }

    @Test func aFailureIsThrown() async {
        let waiters = ResultWaiters<URL, DownloadError>()
        waiters.resolve(.failure(.httpStatus(404)))
        await #expect(throws: DownloadError.httpStatus(404)) { try await waiters.wait() }
    }

    @Test func aCancelledWaiterStopsWaitingAndOthersGoOn() async throws {
        let waiters = ResultWaiters<URL, DownloadError>()
        let cancelled = Task { try await waiters.wait() }
        let patient = Task { try await waiters.wait() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        waiters.resolve(.success(file))
        #expect(try await patient.value == file)
    }

    @Test func aWaiterCancelledBeforeItParksStopsWaiting() async {
        let waiters = ResultWaiters<URL, DownloadError>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await waiters.wait()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func anUncancellableWaitIgnoresCancellation() async throws {
        let waiters = ResultWaiters<URL, DownloadError>()
        let task = Task { await waiters.waitIgnoringCancellation() }
        task.cancel()
        waiters.resolve(.success(file))
        #expect(try await task.value.get() == file)
    }

    @Test func resetStartsANewRun() async throws {
        let waiters = ResultWaiters<URL, DownloadError>()
        waiters.resolve(.failure(.network(.timedOut)))
        waiters.reset()
        #expect(waiters.outcome == nil)
        async let next = waiters.wait()
        waiters.resolve(.success(file))
        #expect(try await next == file)
    }
}
