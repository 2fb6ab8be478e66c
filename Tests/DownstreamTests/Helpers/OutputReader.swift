@testable import Downstream
import Foundation

/// Reads a file descriptor to its end on a thread of its own (the reads block), keeps what it
/// read, and wakes those who wait for a text. It closes the descriptor at the end.
final class OutputReader: Sendable {
    private struct Waiter {
        let predicate: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<String?, Never>
    }

    private struct State {
        var data = Data()
        var ended = false
        var nextWaiter = 0
        var waiters: [Int: Waiter] = [:]
    }

    private let descriptor: Int32
    /// The most bytes read before the descriptor is closed, as `head -c` closes its input.
    private let limit: Int?
    /// Whether the text read so far is all the reader wants: then it closes the descriptor, as
    /// `head -1` closes its input after a line.
    private let isEnough: (@Sendable (String) -> Bool)?
    private let state = Locked(State())

    init(_ descriptor: Int32, limit: Int? = nil, closesWhen isEnough: (@Sendable (String) -> Bool)? = nil) {
        self.descriptor = descriptor
        self.limit = limit
        self.isEnough = isEnough
    }

    func start() {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var rest = limit ?? .max
            while rest > 0 {
                let wanted = min(rest, buffer.count)
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
                if count < 0, errno == EINTR { continue }
                // A pseudo-terminal ends with EIO once the child's side is closed.
                guard count > 0 else { break }
                append(buffer[0..<count])
                rest -= count
                if let isEnough, isEnough(current) { break }
            }
            close(descriptor)
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.continuation.resume(returning: nil) }
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        let (text, ready) = state.withLock { state in
            state.data.append(contentsOf: bytes)
            let text = String(decoding: state.data, as: UTF8.self)
            let ready = state.waiters.filter { $0.value.predicate(text) }
            for id in ready.keys { state.waiters[id] = nil }
            return (text, Array(ready.values))
        }
        for waiter in ready { waiter.continuation.resume(returning: text) }
    }

    /// What was read so far.
    var current: String {
        state.withLock { String(decoding: $0.data, as: UTF8.self) }
    }

    /// Returns the text read once it satisfies `predicate`; nil if the output ended first.
    func wait(until predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let settled: String?? = state.withLock { state in
                let text = String(decoding: state.data, as: UTF8.self)
                if predicate(text) { return .some(text) }
                if state.ended { return .some(nil) }
                state.waiters[state.nextWaiter] = Waiter(predicate: predicate, continuation: continuation)
                state.nextWaiter += 1
                return nil
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Returns once the text read contains `text`; false if the output ended first.
    func wait(for text: String) async -> Bool {
        await wait { $0.contains(text) } != nil
    }

    /// All of the output, once it ended.
    func text() async -> String {
        _ = await wait { _ in false }
        return current
    }

    /// All of the output, as bytes, once it ended.
    func data() async -> Data {
        _ = await wait { _ in false }
        return state.withLock { $0.data }
    }
}
