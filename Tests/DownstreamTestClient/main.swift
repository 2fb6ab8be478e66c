// A child process for tests that must observe a download from the outside: its peak memory
// (measured by the kernel) while it downloads one URL.
//
//     DownstreamTestClient <url> <destination-file> [--disk-bytes-per-second N]
//
// Prints one line `ok peak-kib=<VmHWM> bytes=<size>` and exits 0, or `failed <error>` and exits 1.

@_spi(Testing) import Downstream
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
var diskRate: Int?
if let index = arguments.firstIndex(of: "--disk-bytes-per-second"), index + 1 < arguments.count {
    diskRate = Int(arguments[index + 1])
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.count == 2, let url = URL(string: arguments[0]) else {
    print("usage: DownstreamTestClient <url> <destination-file> [--disk-bytes-per-second N]")
    exit(2)
}
let destination = URL(fileURLWithPath: arguments[1])

/// The process's peak resident memory in KiB, as the kernel counts it.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }
    return -1
}

do {
    let manager = try DownloadManager(
        configuration: .init(identifier: "test-client") {
            $0.storage.directory = destination.deletingLastPathComponent().appendingPathComponent(".store")
            $0.storage.simulatedDiskBytesPerSecond = diskRate
        })
    let file = try await manager.downloadFile(from: url, to: .file(destination, ifExists: .replace))
    let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? -1
    print("ok peak-kib=\(peakResidentKiB()) bytes=\(size)")
    exit(0)
} catch {
    print("failed \(error)")
    exit(1)
}
