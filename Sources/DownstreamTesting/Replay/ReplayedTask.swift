import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task as Downstream's system-task engine sees it: one per ``BackgroundSessionReplay/DownloadTask``,
/// for as long as it lives, so that the engine recognizes the task in every event.
final class ReplayedTask: SystemTask, @unchecked Sendable {
    // Safe: `active` and `currentResponse` are only touched while `lock` is held; the rest is
    // immutable.
    let taskIdentifier: Int
    let taskDescription: String?
    let url: URL
    private let lock = NSLock()
    private var active = true
    private var currentResponse: HTTPURLResponse?

    init(taskIdentifier: Int, taskDescription: String?, url: URL) {
        self.taskIdentifier = taskIdentifier
        self.taskDescription = taskDescription
        self.url = url
        currentResponse = Self.response(url, status: 200, headers: [:])
    }

    var response: URLResponse? {
        lock.withLock { currentResponse }
    }

    var isActive: Bool {
        lock.withLock { active }
    }

    func respond(status: Int, headers: [String: String]) {
        let response = Self.response(url, status: status, headers: headers)
        lock.withLock { currentResponse = response }
    }

    func end() {
        lock.withLock { active = false }
    }

    private static func response(_ url: URL, status: Int, headers: [String: String]) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    }
}
