import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The baseline: a hand-written URLSession data-task delegate that appends every chunk to a
/// file, as most apps do it. No resume, no backpressure.
final class PlainURLSessionDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe: `handle` and `failure` are only touched on the session's serial delegate queue,
    // and read after `done` was signalled.
    private let url: URL
    private let destination: URL
    private let throttle: DiskThrottle?
    private let done = DispatchSemaphore(value: 0)
    private var handle: FileHandle?
    private var failure: (any Error)?

    init(url: URL, destination: URL, throttle: DiskThrottle?) {
        self.url = url
        self.destination = destination
        self.throttle = throttle
    }

    func run() throws {
        _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
        handle = try FileHandle(forWritingTo: destination)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        session.dataTask(with: url).resume()
        done.wait()
        session.finishTasksAndInvalidate()
        try handle?.close()
        if let failure { throw failure }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handle?.write(data)
        throttle?.account(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        failure = error
        done.signal()
    }
}
