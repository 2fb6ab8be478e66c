// dl: download a URL into a directory, showing progress. Interrupt it with Ctrl-C and run the
// same command again: it continues from the bytes it already has.
//
//     swift run dl <url> [directory]

import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard let address = arguments.first, let url = URL(string: address), url.scheme != nil else {
    print("usage: dl <url> [directory]")
    exit(2)
}
let directory = URL(
    fileURLWithPath: arguments.count > 1 ? arguments[1] : FileManager.default.currentDirectoryPath, isDirectory: true)

let manager: DownloadManager
do {
    manager = try DownloadManager(configuration: .init(identifier: "dl") { $0.progress.interval = .milliseconds(250) })
} catch {
    print("cannot start: \(error)")
    exit(1)
}
let work = Task { try await manager.downloadFile(from: url, to: .directory(directory)) }

// Ctrl-C cancels the download but keeps what it received, for the next run.
signal(SIGINT, SIG_IGN)
let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
interrupt.setEventHandler { work.cancel() }
interrupt.resume()

// Show the progress of the download that `downloadFile` started.
let reporter = Task {
    guard let download = await manager.downloads.first else { return }
    for await progress in download.progress {
        Terminal.show(progress)
    }
}

do {
    let file = try await work.value
    await reporter.value
    Terminal.finishLine()
    print("saved \(file.path)")
} catch let error as DownloadError where error.kind == .cancelled {
    Terminal.finishLine()
    print("interrupted; run the same command again to continue")
    exit(130)
} catch {
    Terminal.finishLine()
    print("failed: \(error)")
    exit(1)
}

enum Terminal {
    static func show(_ progress: DownloadProgress) {
        let received = megabytes(progress.bytesReceived)
        let total = progress.expectedBytes.map { " of \(megabytes($0))" } ?? ""
        let percent = progress.fractionCompleted.map { String(format: "%5.1f%%  ", $0 * 100) } ?? ""
        let speed = String(format: "%.1f MB/s", progress.bytesPerSecond / 1e6)
        FileHandle.standardOutput.write(Data("\r\(percent)\(received)\(total)  \(speed)   ".utf8))
    }

    static func finishLine() {
        print("")
    }

    private static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}
