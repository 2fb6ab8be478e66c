@testable import Downstream
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport without sockets: each request it starts waits for the test to play the server,
/// one event at a time, on the test's own task (so events are in order, as a transport's are).
final class ScriptedTransport: Transport {
    var name: String { "scripted" }
    var needsBoundedRequests: Bool { false }
    var connectionSettings: Set<ConnectionSetting> { Set(ConnectionSetting.allCases) }
    private struct State {
        var requests: [ScriptedRequest] = []
        /// Tests waiting for the request at an index (from 0) to start.
        var waiters: [(index: Int, continuation: CheckedContinuation<ScriptedRequest, Never>)] = []
    }

    private let state = Locked(State())

    /// The requests started so far, oldest first.
    var started: [ScriptedRequest] { state.withLock { $0.requests } }

    /// The request number `number` (from 1), once it started.
    func request(_ number: Int) async -> ScriptedRequest {
        await withCheckedContinuation { continuation in
            let started = state.withLock { state -> ScriptedRequest? in
                if state.requests.count >= number { return state.requests[number - 1] }
                state.waiters.append((number - 1, continuation))
                return nil
            }
            if let started { continuation.resume(returning: started) }
        }
    }

    func start(_ request: URLRequest, receiver: any TransportReceiver) -> any TransportTask {
        let started = ScriptedRequest(request, receiver: receiver)
        let woken = state.withLock { state in
            state.requests.append(started)
            let index = state.requests.count - 1
            defer { state.waiters.removeAll { $0.index == index } }
            return state.waiters.filter { $0.index == index }.map(\.continuation)
        }
        for waiter in woken { waiter.resume(returning: started) }
        return started
    }

    func invalidate() async {}
}

/// One request of a ``ScriptedTransport``: what was asked, whether it was cancelled, and the
/// server's part, played by the test.
final class ScriptedRequest: TransportTask {
    let request: URLRequest
    private let receiver: any TransportReceiver
    private let cancels = Locked(0)
    private let (resumes, resumption) = AsyncStream<Void>.makeStream()

    init(_ request: URLRequest, receiver: any TransportReceiver) {
        self.request = request
        self.receiver = receiver
    }

    /// How many times the owner asked the request to stop.
    var cancelCount: Int { cancels.withLock { $0 } }

    func cancel() {
        cancels.withLock { $0 += 1 }
    }

    /// The server answers with a response head.
    func respond(_ status: Int, _ headers: [String: String] = [:]) {
        receiver.didReceive(ServerResponse(url: request.url, statusCode: status, headers: headers))
    }

    /// Returns once the owner asked for the body again after answering `.later`.
    func resumed() async {
        for await _ in resumes { return }
    }

    var waitsAlone: Bool { true }

    func resumeBody() {
        resumption.yield()
    }

    /// The next bytes of the body, in one chunk; returns what the receiver did with them.
    @discardableResult
    func send(_ bytes: [UInt8]) -> BodyReception {
        bytes.withUnsafeBytes { receiver.didReceive($0, of: self) }
    }

    /// The request ends: completely, or with `failure`.
    func complete(_ failure: TransportFailure? = nil) {
        receiver.didComplete(failure)
    }

    /// The server redirects to `location`; returns the receiver's answer (the request to follow,
    /// or nil to take the redirect as the response).
    func redirect(_ status: Int = 302, to location: URL) async -> URLRequest? {
        var proposed = request
        proposed.url = location
        let response = ServerResponse(
            url: request.url, statusCode: status, headers: ["Location": location.absoluteString])
        return await withCheckedContinuation { continuation in
            let answered = Locked(false)
            receiver.willRedirect(response, to: proposed) { answer in
                let isFirst = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if isFirst { continuation.resume(returning: answer) }
            }
        }
    }
}
