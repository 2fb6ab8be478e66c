// A child process for tests that observe downloads from the outside.
//
//     DownstreamTestClient single <url> <destination-file> [--disk-bytes-per-second N] [--sha256 HEX]
//         Downloads one URL; prints `ok peak-kib=<VmHWM> bytes=<size> transport=<name> sigpipe=<disposition>`
//         (peak memory as the kernel counts it; what the process does on SIGPIPE after the download).
//
//     DownstreamTestClient fetch <url> <destination-file> [--compressed yes] [--max-filesize N]
//                                [--timeout SECONDS]
//         Downloads one URL as a request with those settings; prints `ok peak-kib=<VmHWM> bytes=<size>`
//         or `failed`, `kind=<error kind>`, `peak-kib=<VmHWM>`, `partial=<bytes or -1>` and
//         `reason=<reason>` separated by tabs, and exits 0 either way: for tests of what hostile
//         servers make the library do.
//
//     DownstreamTestClient many [--store <dir>] --directory <dir> [--identifier NAME]
//                               [--checkpoint-bytes N] [--stall-in-record-write N] [--connections N]
//                               [--minimum-segment BYTES] [--sha256 HEX] [--retry-delay-ms N]
//                               [--uid N] <url>...
//         Restores the downloads of its store (the library's default place without --store: the
//         data directory of $XDG_DATA_HOME or $HOME), prints `store=<its directory>`, then
//         downloads every URL whose file is not in the directory yet (joining restored downloads;
//         over N connections each, expecting the SHA-256 HEX); prints `ok`. Tests kill it at
//         random moments and run it again. With --stall-in-record-write, the Nth record write of
//         the run prints `stalled in record write` and never finishes: the test kills it there.
//         With --retry-delay-ms, the first retry waits that long. With --uid (run as root), it
//         first becomes user and group N (one the password database may not know).
//
//     DownstreamTestClient disk-full --store <dir> --directory <small-file-system> --sha256 <hex> <url>
//         Downloads <url> (a file of known length) into a directory on a small file system,
//         three times: with a filler file that leaves too little room (prints `preflight <error
//         kind> partial=<bytes>`), with a filler written once a third has arrived that takes
//         the rest of the room (prints `midway <error kind> resumable=<bool> partial=<bytes>`),
//         then with the fillers removed (prints `resumed ok`, after the digest was checked).
//
//     DownstreamTestClient hold --store <dir>
//         Makes a manager on the store at <dir> and prints `holding pid=<pid>`, then keeps it until
//         its standard input ends.
//
// Exits 0 on success, 1 with `failed <error>` on failure, 2 on bad arguments.

import Downstream
import Foundation

func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }
    return -1
}

/// `--name value` options, and the other arguments in order.
struct Arguments {
    var options: [String: String] = [:]
    var positional: [String] = []

    init(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            if arguments[index].hasPrefix("--"), index + 1 < arguments.count {
                options[String(arguments[index].dropFirst(2))] = arguments[index + 1]
                index += 2
            } else {
                positional.append(arguments[index])
                index += 1
            }
        }
    }
}

func single(_ arguments: Arguments) async throws {
    guard arguments.positional.count == 2, let url = URL(string: arguments.positional[0]) else {
        print(
            "usage: DownstreamTestClient single <url> <destination-file> [--disk-bytes-per-second N] [--sha256 HEX]")
        exit(2)
    }
    let destination = URL(fileURLWithPath: arguments.positional[1])
    let manager = try DownloadManager(
        configuration: .init(identifier: "test-client") {
            $0.storage.directory = destination.deletingLastPathComponent().appendingPathComponent(".store")
            $0.storage.simulatedDiskBytesPerSecond = arguments.options["disk-bytes-per-second"].flatMap { Int($0) }
            $0.eventMonitors = [FallbackPrinter()]
        })
    var request = DownloadRequest(url: url, to: .file(destination, ifExists: .replace))
    request.expectedDigest = arguments.options["sha256"].map { Digest(.sha256, hex: $0) }
    let file = try await manager.downloadFile(request)
    let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? -1
    print(
        "ok peak-kib=\(peakResidentKiB()) bytes=\(size) transport=\(manager.transportName)"
            + " sigpipe=\(brokenPipeDisposition())")
}

func fetch(_ arguments: Arguments) async throws {
    guard arguments.positional.count == 2, let url = URL(string: arguments.positional[0]) else {
        print("usage: DownstreamTestClient fetch <url> <destination-file> [--compressed yes] [--max-filesize N]")
        exit(2)
    }
    let destination = URL(fileURLWithPath: arguments.positional[1])
    let manager = try DownloadManager(
        configuration: .init(identifier: "test-client-fetch") {
            $0.storage.directory = destination.deletingLastPathComponent().appendingPathComponent(".store")
            $0.retry.maximumRetries = 0
            if let timeout = arguments.options["timeout"].flatMap(Double.init) {
                $0.network.requestTimeout = .seconds(timeout)
            }
        })
    var request = DownloadRequest(url: url, to: .file(destination, ifExists: .replace))
    request.acceptsCompressedBody = arguments.options["compressed"] == "yes"
    request.maximumFileSize = arguments.options["max-filesize"].flatMap { Int64($0) }
    let download = await manager.download(request)
    do {
        let file = try await download.fileURL
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? -1
        print("ok peak-kib=\(peakResidentKiB()) bytes=\(size)")
    } catch let error as DownloadError {
        let partial =
            (try? FileManager.default.attributesOfItem(atPath: destination.path + ".partial")[.size])
            .flatMap { ($0 as? NSNumber)?.int64Value } ?? -1
        print("failed\tkind=\(error.kind)\tpeak-kib=\(peakResidentKiB())\tpartial=\(partial)\treason=\(error.reason)")
    }
    await manager.invalidate()
}

/// What the process does on `SIGPIPE`: `default` (it ends), `ignored`, or `handled` (Linux, where
/// the libcurl transport runs; `not measured` elsewhere).
func brokenPipeDisposition() -> String {
    #if os(Linux)
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        // SIG_DFL and SIG_IGN are the handlers 0 and 1.
        switch unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) {
        case 0: return "default"
        case 1: return "ignored"
        default: return "handled"
        }
    #else
        return "not measured"
    #endif
}

/// Prints `fallback to <transport>: <reason>` when the manager falls back to URLSession, and
/// `digests in <implementation>: <reason>` when it computes digests without the platform's code.
struct FallbackPrinter: DownloadEventMonitor {
    func transportFellBack(to transport: String, reason: String) {
        print("fallback to \(transport): \(reason)")
    }

    func digestsFellBack(to implementation: String, reason: String) {
        print("digests in \(implementation): \(reason)")
    }
}

/// Stops the process inside its `number`th record write, between the temporary file and the
/// rename, and says so.
final class RecordWriteStall: @unchecked Sendable {
    // Safe: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    private let number: Int

    init(at number: Int) {
        self.number = number
    }

    func observe() {
        lock.lock()
        count += 1
        let stalls = count == number
        lock.unlock()
        guard stalls else { return }
        FileHandle.standardOutput.write(Data("stalled in record write\n".utf8))
        // Parked for good, inside the write: the test kills the process here.
        DispatchSemaphore(value: 0).wait()
    }
}

/// Becomes user and group `id`, with no supplementary groups, for good (the process runs as root).
func become(_ id: UInt32) {
    guard setgroups(0, nil) == 0, setgid(id) == 0, setuid(id) == 0 else {
        print("failed to become uid \(id): errno \(errno)")
        exit(1)
    }
}

func many(_ arguments: Arguments) async throws {
    guard let directory = arguments.options["directory"] else {
        print("usage: DownstreamTestClient many [--store <dir>] --directory <dir> [--checkpoint-bytes N] <url>...")
        exit(2)
    }
    if let uid = arguments.options["uid"].flatMap({ UInt32($0) }) {
        become(uid)
    }
    let manager = try DownloadManager(
        configuration: .init(identifier: arguments.options["identifier"] ?? "test-client-many") {
            $0.storage.directory = arguments.options["store"].map { URL(fileURLWithPath: $0) }
            if let bytes = arguments.options["checkpoint-bytes"].flatMap({ Int64($0) }) {
                $0.storage.checkpoints.bytes = bytes
                $0.storage.checkpoints.interval = .milliseconds(50)
            }
            if let stallAt = arguments.options["stall-in-record-write"].flatMap({ Int($0) }) {
                $0.storage.recordWriteObserver = RecordWriteStall(at: stallAt).observe
            }
            if let connections = arguments.options["connections"].flatMap({ Int($0) }) {
                $0.network.maximumConnectionsPerFile = connections
                $0.network.maximumConnectionsPerHost = max(connections, 6)
            }
            if let minimum = arguments.options["minimum-segment"].flatMap({ Int64($0) }) {
                $0.network.minimumSegmentSize = minimum
            }
            if let delay = arguments.options["retry-delay-ms"].flatMap({ Int($0) }) {
                $0.retry.initialDelay = .milliseconds(delay)
            }
        })
    FileHandle.standardOutput.write(Data("store=\(manager.storeDirectory.path)\n".utf8))
    let target = URL(fileURLWithPath: directory, isDirectory: true)
    var downloads: [Download] = []
    for address in arguments.positional {
        guard let url = URL(string: address) else { continue }
        let file = target.appendingPathComponent(url.lastPathComponent)
        guard !FileManager.default.fileExists(atPath: file.path) else { continue }
        var request = DownloadRequest(url: url, to: .file(file))
        request.expectedDigest = arguments.options["sha256"].map { Digest(.sha256, hex: $0) }
        downloads.append(await manager.download(request))
    }
    for download in downloads {
        _ = try await download.fileURL
    }
    print("ok")
}

/// Writes zeros to a new file at `path` until the file system has no room left.
func fillUp(_ path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return }
    let zeros = [UInt8](repeating: 0, count: 4096)
    while zeros.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    close(descriptor)
}

func diskFull(_ arguments: Arguments) async throws {
    guard let store = arguments.options["store"], let directory = arguments.options["directory"],
        let sha256 = arguments.options["sha256"], let address = arguments.positional.first,
        let url = URL(string: address)
    else {
        print("usage: DownstreamTestClient disk-full --store <dir> --directory <dir> --sha256 <hex> <url>")
        exit(2)
    }
    let manager = try DownloadManager(
        configuration: .init(identifier: "test-client-disk-full") {
            $0.storage.directory = URL(fileURLWithPath: store)
        })
    let filler = URL(fileURLWithPath: directory).appendingPathComponent("filler")
    func available() -> Int64 {
        var status = statvfs()
        guard statvfs(directory, &status) == 0 else { return 0 }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }
    func describe(_ download: Download) async -> (DownloadError?, Int64) {
        var error: DownloadError?
        do {
            _ = try await download.fileURL
        } catch let failure as DownloadError {
            error = failure
        } catch {}
        // The partial file lives beside its destination.
        let partialPath = directory + "/file.partial"
        let partial =
            (try? FileManager.default.attributesOfItem(atPath: partialPath)[.size] as? NSNumber)?
            .int64Value ?? -1
        return (error, partial)
    }

    // Too little room from the start: refused before the first byte.
    let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = ftruncate(descriptor, 0)
    let half = [UInt8](repeating: 1, count: Int(available() / 2))
    _ = half.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    var request = DownloadRequest(url: url, to: .file(URL(fileURLWithPath: directory).appendingPathComponent("file")))
    request.expectedDigest = .sha256(sha256)
    let download = await manager.download(request)
    let (preflight, preflightPartial) = await describe(download)
    print("preflight \(preflight?.kind.description ?? "none") partial=\(preflightPartial)")
    try FileManager.default.removeItem(at: filler)

    // The room runs out on the way.
    await download.resume()
    let expected = await download.progress.first { $0.expectedBytes != nil }?.expectedBytes ?? 0
    _ = await download.progress.first { $0.bytesReceived >= expected / 3 }
    fillUp(filler.path)
    let (midway, midwayPartial) = await describe(download)
    print(
        "midway \(midway?.kind.description ?? "none") resumable=\(midway?.isResumable ?? false) partial=\(midwayPartial)"
    )

    // Room again: the download goes on from its partial file.
    try FileManager.default.removeItem(at: filler)
    await download.resume()
    _ = try await download.fileURL
    print("resumed ok")
}

func hold(_ arguments: Arguments) throws {
    guard let store = arguments.options["store"] else {
        print("usage: DownstreamTestClient hold --store <dir>")
        exit(2)
    }
    let manager = try DownloadManager(
        configuration: .init(identifier: "test-client-hold") { $0.storage.directory = URL(fileURLWithPath: store) })
    FileHandle.standardOutput.write(Data("holding pid=\(getpid())\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    withExtendedLifetime(manager) {}
}

let arguments = Arguments(Array(CommandLine.arguments.dropFirst(2)))
do {
    switch CommandLine.arguments.dropFirst().first {
    case "single": try await single(arguments)
    case "fetch": try await fetch(arguments)
    case "many": try await many(arguments)
    case "disk-full": try await diskFull(arguments)
    case "hold": try hold(arguments)
    default:
        print("usage: DownstreamTestClient single|many …")
        exit(2)
    }
    exit(0)
} catch {
    print("failed \(error)")
    exit(1)
}
