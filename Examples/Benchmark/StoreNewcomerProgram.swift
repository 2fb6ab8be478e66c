import Downstream
import DownstreamTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The store benchmark's second program, written as a newcomer writes one: the defaults, each
/// `Download` kept (as an app keeps them for its list), every request made in the loop with
/// ``DownloadManager/download(from:to:)`` (queued, not paused: the first few start), and, in a
/// new process, `manager.downloads` read with each download's URL, state and progress (what a
/// list shows).
///
/// The downloads' server accepts connections and never answers: the downloads that start stay
/// running, the others queued, as behind a slow server.
enum StoreNewcomerProgram {
    static func enqueue(count: Int, configuration: DownloadManager.Configuration, files: URL) async throws -> String {
        let port = try silentServerPort()
        let clock = ContinuousClock()
        let manager = try DownloadManager(configuration: configuration)
        let before = ChildRun.residentBytes()
        let start = clock.now
        var downloads: [Download] = []
        for index in 0..<count {
            let url = URL(string: "http://127.0.0.1:\(port)/file-\(index).bin")!
            downloads.append(await manager.download(from: url, to: .directory(files)))
        }
        let seconds = ChildRun.seconds(start.duration(to: clock.now))
        let perDownload = (ChildRun.residentBytes() - before) / count
        return "seconds=\(seconds) resident-per-download=\(perDownload) peak-kib=\(ChildRun.peakResidentKiB())"
    }

    static func restore(count: Int, configuration: DownloadManager.Configuration) async throws -> String {
        let clock = ContinuousClock()
        let before = ChildRun.residentBytes()
        let start = clock.now
        let manager = try DownloadManager(configuration: configuration)
        let downloads = await manager.downloads
        var listed = 0
        var bytes: Int64 = 0
        for download in downloads {
            // What a list row shows.
            if download.url != nil, download.state != .completed { listed += 1 }
            bytes += download.currentProgress.bytesReceived
        }
        let seconds = ChildRun.seconds(start.duration(to: clock.now))
        let perDownload = (ChildRun.residentBytes() - before) / count
        guard listed == count, bytes == 0 else {
            throw BenchmarkError("listed \(listed) of \(count) downloads")
        }
        return "seconds=\(seconds) resident-per-download=\(perDownload) peak-kib=\(ChildRun.peakResidentKiB())"
    }

    /// A loopback port whose listener never accepts: connections wait in its backlog.
    private static func silentServerPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, POSIXSocket.streamType, 0)
        guard descriptor >= 0 else { throw BenchmarkError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 128) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError("bind: \(errno)") }
        // The descriptor stays open for the process's life.
        return UInt16(bigEndian: address.sin_port)
    }
}
